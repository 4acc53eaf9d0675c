// Package ignore matches workspace paths against gitignore-syntax rules with
// git's exact semantics. toolgate uses it for .clineignore (files an agent
// must never touch) and, in the search and list tools, for the nested
// .gitignore and .ignore files that ripgrep honours.
//
// Paths are slash-separated and relative to the workspace root. The rules of
// one file apply to paths below the directory the file lives in; within a
// file the last matching line wins; a deeper directory's file takes
// precedence over a shallower one; and a path below an ignored directory
// stays ignored whatever later rules say, as in git.
//
// Typical uses:
//
//	w, err := ignore.NewWatcher(root)  // .clineignore with !include, reloaded on change
//	defer w.Close()
//	m := w.Current()
//	if r, ignored := m.Match("secrets/key.pem", false); ignored {
//		// refuse, naming r (".clineignore:3:secrets/")
//	}
//
//	// A walker stacks each directory's files as it descends and checks
//	// entries with MatchOne, skipping ignored directories.
//	sub := m.WithFile("src/.gitignore", "src", data)
//
// It owns gitignore-syntax matching and the loading and watching of
// .clineignore. It is a library under internal/ and imports no layer of
// toolgate; the coordinator's policy and the search tools in handlers use it.
package ignore
