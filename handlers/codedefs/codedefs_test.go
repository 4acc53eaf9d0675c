package codedefs

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// requireCtags skips the test when ctags is not installed, unless CI is set:
// CI installs universal-ctags, so there its absence is a failure.
func requireCtags(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ctags"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ctags not found (install universal-ctags): %v", err)
		}
		t.Skipf("ctags not found (install universal-ctags): %v", err)
	}
}

// openRoot opens dir as a workspace root, closed when the test ends.
func openRoot(t testing.TB, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

// writeFiles creates files (slash paths relative to dir) with their contents.
func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// list runs l.List on dir of a workspace at ws and fails the test on error.
func list(t *testing.T, l *Lister, ws, dir string, exclude func(string, bool) bool) string {
	t.Helper()
	got, err := l.List(t.Context(), openRoot(t, ws), dir, exclude)
	if err != nil {
		t.Fatalf("List(%q): %v", dir, err)
	}
	return got
}

func TestListLanguages(t *testing.T) {
	requireCtags(t)
	tests := []struct {
		dir  string
		want string
	}{
		{"go", `server.go
|----
│type Server struct {
|----
│type Handler interface {
|----
│type ID = string
|----
│func New(addr string) *Server {
|----
│func (s *Server) Run() error {
|----
│type A int
│type B int
|----

`},
		{"js", `app.js
|----
│export function load(path) {
|----
│export class Store {
│  constructor() {
|----
│  add(item) {
|----
│const handler = async (req) => {
|----
│function* ids() {
|----

`},
		{"ts", `model.ts
|----
│export class Repo {
|----
│  find(id: ID): User | undefined {
|----
│export function greet(u: User): string {
|----

view.tsx
|----
│export function Header(props: Props) {
|----

`},
		{"py", `shapes.py
|----
│class Shape:
│    def area(self):
|----
│    def name(self):
|----
│class Circle(Shape):
│    def __init__(self, r):
|----
│    def area(self):
|----
│def total(shapes):
|----

`},
		{"rust", `lib.rs
|----
│pub struct Point {
|----
│pub enum Shape {
|----
│pub trait Area {
│    fn area(&self) -> f64;
|----
│impl fmt::Display for Point {
│    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
|----
│pub type Pair = (Point, Point);
|----
│pub fn origin() -> Point {
|----
│mod inner {
│    pub fn helper() {}
|----

`},
		{"java", `Shop.java
|----
│public class Shop {
|----
│    public Shop(List<Item> items) {
|----
│    public int total() {
|----
│    interface Item {
│        int price();
|----
│    enum Kind { FOOD, TOOL }
|----

`},
		{"c", `list.c
|----
│union number {
|----
│node *list_push(node *head, int value)
|----
│int list_len(const node *head)
|----

list.h
|----
│typedef struct node {
|----
│} node;
|----
│enum color { RED, GREEN };
|----
│node *list_push(node *head, int value);
│int list_len(const node *head);
|----

`},
		{"cpp", `shape.cpp
|----
│class Square : public Shape {
|----
│    explicit Square(double s) : side(s) {}
│    double area() const override { return side * side; }
|----
│double perimeter(const Square &sq, double side)
|----

shape.hpp
|----
│class Shape {
|----
│    virtual ~Shape() = default;
│    virtual double area() const = 0;
|----
│struct Point {
|----

util.cc
|----
│T clamp(T v, T lo, T hi)
|----
│enum class Mode { Fast, Safe };
|----

`},
		{"other", `a.kt
|----
│typealias Name = String
|----
│interface Greeter {
│    fun greet(n: Name): String
|----
│class Hello : Greeter {
│    override fun greet(n: Name) = "hi $n"
|----
│object Registry {
|----
│fun main() {}
|----

b.cs
|----
│namespace Demo
|----
│    public interface IShape { double Area(); }
|----
│    public class Square : IShape
|----
│        public double Area() { return Side * Side; }
|----
│    public enum Kind { A, B }
│    public struct P { public int X; }
|----

c.rb
|----
│module Shop
│  class Cart
|----
│    def initialize
|----
│    def self.empty
|----

d.php
|----
│interface Named { public function name(): string; }
|----
│trait Greets {
│    public function greet() { return "hi"; }
|----
│class User implements Named {
|----
│    public function name(): string { return "u"; }
|----
│function helper() {}
|----

`},
	}
	var l Lister
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			got := list(t, &l, "testdata", tt.dir, nil)
			if got != tt.want {
				t.Errorf("List(%q):\n got:\n%s\nwant:\n%s", tt.dir, got, tt.want)
			}
		})
	}
}
