package app

import "fmt"

func Greet(name string) {
	fmt.Println("hello", name)
}

func Part(name string) {
	fmt.Println("bye", name)
}
