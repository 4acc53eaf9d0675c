module github.com/toolgate/toolgate

go 1.26

require github.com/aymanbagabas/go-udiff v0.4.1
