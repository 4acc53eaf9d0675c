module github.com/toolgate/toolgate

go 1.26

require github.com/fsnotify/fsnotify v1.10.1

require golang.org/x/sys v0.13.0 // indirect
