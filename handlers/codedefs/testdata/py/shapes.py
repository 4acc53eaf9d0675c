import math

PI = math.pi


class Shape:
    def area(self):
        raise NotImplementedError

    @property
    def name(self):
        return "shape"


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return PI * self.r ** 2


def total(shapes):
    return sum(s.area() for s in shapes)
