use std::fmt;

pub const MAX: usize = 10;

pub struct Point {
    pub x: i32,
    pub y: i32,
}

pub enum Shape {
    Dot(Point),
    Line(Point, Point),
}

pub trait Area {
    fn area(&self) -> f64;
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub type Pair = (Point, Point);

pub fn origin() -> Point {
    Point { x: 0, y: 0 }
}

mod inner {
    pub fn helper() {}
}
