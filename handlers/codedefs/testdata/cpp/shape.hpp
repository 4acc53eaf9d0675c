#pragma once

namespace geo {

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

struct Point {
    double x, y;
};

}  // namespace geo
