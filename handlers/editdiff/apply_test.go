package editdiff

import "testing"

const goFile = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n"

func TestApplyMarkers(t *testing.T) {
	want := "a\nB\nc\n"
	runApplyCases(t, []applyCase{
		{name: "standard markers", original: "a\nb\nc\n", diff: blk("b", "B"), want: want},
		{name: "legacy conflict markers", original: "a\nb\nc\n",
			diff: "<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n", want: want},
		{name: "three-character markers", original: "a\nb\nc\n",
			diff: "--- SEARCH\nb\n===\nB\n+++ REPLACE\n", want: want},
		{name: "long markers", original: "a\nb\nc\n",
			diff: "------------ SEARCH\nb\n===============\nB\n++++++++++++ REPLACE\n", want: want},
		{name: "markers with trailing blanks", original: "a\nb\nc\n",
			diff: "------- SEARCH  \nb\n=======\t\nB\n+++++++ REPLACE \n", want: want},
		{name: "markers with closing angle", original: "a\nb\nc\n",
			diff: "------- SEARCH>\nb\n=======\nB\n+++++++ REPLACE>\n", want: want},
		{name: "legacy and new forms mixed across blocks", original: "a\nb\nc\n",
			diff: "<<<<<<< SEARCH\na\n=======\nA\n>>>>>>> REPLACE\n" + blk("c", "C"), want: "A\nb\nC\n"},
		{name: "diff without final newline", original: "a\nb\nc\n",
			diff: "------- SEARCH\nb\n=======\nB\n+++++++ REPLACE", want: want},
		{name: "blank lines around and between blocks", original: "a\nb\nc\n",
			diff: "\n\n" + blk("a", "A") + "\n" + blk("c", "C") + "\n", want: "A\nb\nC\n"},
		{name: "CRLF diff text", original: "a\nb\nc\n",
			diff: "------- SEARCH\r\nb\r\n=======\r\nB\r\n+++++++ REPLACE\r\n", want: want},
		{name: "missing final REPLACE marker", original: "a\nb\nc\n",
			diff: "------- SEARCH\nb\n=======\nB\n", want: want},
		{name: "missing final REPLACE marker drops trailing padding", original: "a\nb\nc\n",
			diff: "------- SEARCH\nb\n=======\nB\n\n\n", want: want},
		{name: "dash lines that are not markers are content", original: "x\n---\ny\n",
			diff: blk("---\ny", "----\nz"), want: "x\n----\nz\n"},
	})
}

func TestApplyStrategies(t *testing.T) {
	runApplyCases(t, []applyCase{
		{name: "exact", original: goFile, diff: blk("\tfmt.Println(\"hi\")", "\tfmt.Println(\"bye\")"),
			want:       "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"bye\")\n}\n",
			strategies: []Strategy{Exact}},
		{name: "exact preferred over an earlier trimmed match", original: "  foo\nfoo\n", diff: blk("foo", "bar"),
			want: "  foo\nbar\n", strategies: []Strategy{Exact}},
		{name: "line-trimmed: spaces instead of a tab", original: goFile, diff: blk("    fmt.Println(\"hi\")", "\tfmt.Println(\"bye\")"),
			want:       "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"bye\")\n}\n",
			strategies: []Strategy{LineTrimmed}},
		{name: "line-trimmed: trailing whitespace in the file", original: "a  \nb\t\nc\n", diff: blk("a\nb", "x"),
			want: "x\nc\n", strategies: []Strategy{LineTrimmed}},
		{name: "line-trimmed: unicode no-break space", original: "\u00a0héllo\nwörld\n", diff: blk("héllo", "hello"),
			want: "hello\nwörld\n", strategies: []Strategy{LineTrimmed}},
		{name: "block-anchor: middle differs", original: "func f() {\n\treturn 1\n}\n",
			diff: blk("func f() {\n\treturn 2 // stale\n}", "func f() {\n\treturn 3\n}"),
			want: "func f() {\n\treturn 3\n}\n", strategies: []Strategy{BlockAnchor}},
		{name: "block-anchor: ambiguous is an error", original: "{\n1\n}\n{\n2\n}\n", diff: blk("{\n3\n}", "x"),
			wantErr: []string{"block 1 of 1", "does not match"}, errBlock: 1},
		{name: "block-anchor: not used for two-line blocks", original: "start\nend\n", diff: blk("start\nmiddle", "x"),
			wantErr: []string{"does not match"}, errBlock: 1},
		{name: "out-of-order blocks apply in file order", original: "a\nb\nc\nd\n",
			diff: blk("c", "C") + blk("a", "A"), want: "A\nb\nC\nd\n", strategies: []Strategy{Exact, OutOfOrder}},
		{name: "out-of-order needs an exact match", original: "\ta\nb\nc\n",
			diff: blk("c", "C") + blk("    a", "A"), wantErr: []string{"block 2 of 2", "out-of-order"}, errBlock: 2, closestLine: 1},
		{name: "several blocks in order", original: "1\n2\n3\n4\n5\n",
			diff: blk("1", "one") + blk("3", "three") + blk("5", "five"), want: "one\n2\nthree\n4\nfive\n",
			strategies: []Strategy{Exact, Exact, Exact}},
		{name: "repeated SEARCH text takes successive occurrences", original: "x\ny\nx\ny\n",
			diff: blk("x", "first") + blk("x", "second"), want: "first\ny\nsecond\ny\n"},
		{name: "overlapping blocks are an error", original: "a\nb\nc\n",
			diff: blk("b\nc", "x") + blk("a\nb", "y"), wantErr: []string{"overlaps block 1", "merge"}, errBlock: 2},
		{name: "delete lines", original: "a\nb\nc\n", diff: blk("b", ""), want: "a\nc\n"},
		{name: "insert lines", original: "a\nc\n", diff: blk("a", "a\nb"), want: "a\nb\nc\n"},
		{name: "blank lines inside SEARCH", original: "a\n\n\nb\n", diff: blk("a\n\n\nb", "ab"), want: "ab\n"},
		{name: "whole lines only, never mid-line", original: "xfoo\n", diff: blk("foo", "bar"),
			wantErr: []string{"does not match"}, closestLine: 1},
	})
}

func TestApplyFileShapes(t *testing.T) {
	runApplyCases(t, []applyCase{
		{name: "empty SEARCH writes an empty file", original: "", diff: blk("", "new\nfile"), want: "new\nfile\n",
			strategies: []Strategy{NewFile}},
		{name: "empty SEARCH and empty REPLACE on empty file", original: "", diff: blk("", ""), want: ""},
		{name: "empty SEARCH on a non-empty file is refused", original: "keep\n", diff: blk("", "x"),
			wantErr: []string{"SEARCH section is empty", "not empty (1 lines)"}, errBlock: 1},
		{name: "empty SEARCH with other blocks is refused", original: "", diff: blk("", "x") + blk("x", "y"),
			wantErr: []string{"only allowed when it is the only block"}, errBlock: 1},
		{name: "SEARCH text on an empty file", original: "", diff: blk("a", "b"),
			wantErr: []string{"the file is empty"}, errBlock: 1, closestLine: -1},
		{name: "CRLF file stays CRLF with an LF diff", original: "a\r\nb\r\nc\r\n", diff: blk("b", "B1\nB2"),
			want: "a\r\nB1\r\nB2\r\nc\r\n"},
		{name: "CRLF file with CRLF diff", original: "a\r\nb\r\n", diff: "------- SEARCH\r\na\r\n=======\r\nA\r\n+++++++ REPLACE\r\n",
			want: "A\r\nb\r\n"},
		{name: "CRLF file without final newline", original: "a\r\nb", diff: blk("b", "B\nC"), want: "a\r\nB\r\nC"},
		{name: "mixed endings: untouched lines keep theirs", original: "a\r\nb\nc\r\n", diff: blk("c", "C"),
			want: "a\r\nb\nC\r\n"},
		{name: "BOM kept", original: "\uFEFFfirst\nsecond\n", diff: blk("first", "1st"), want: "\uFEFF1st\nsecond\n"},
		{name: "BOM kept on an empty file", original: "\uFEFF", diff: blk("", "x"), want: "\uFEFFx\n"},
		{name: "no final newline: SEARCH on the last line matches", original: "a\nb", diff: blk("b", "B"), want: "a\nB"},
		{name: "no final newline: multi-line SEARCH ending on the last line", original: "a\nb\nc", diff: blk("b\nc", "x\ny"),
			want: "a\nx\ny"},
		{name: "no final newline: deleting the last line keeps that state", original: "a\nb", diff: blk("b", ""), want: "a"},
		{name: "final newline kept when editing the last line", original: "a\nb\n", diff: blk("b", "B"), want: "a\nB\n"},
		{name: "unicode text", original: "名前 = \"値\"\n😀 ok\n", diff: blk("😀 ok", "🎉 done"), want: "名前 = \"値\"\n🎉 done\n"},
	})
}

func TestApplyNotFound(t *testing.T) {
	file := "one\ntwo\nfunc compute(a int) int {\n\treturn a * 2\n}\nsix\n"
	runApplyCases(t, []applyCase{
		{name: "closest region reported with line numbers", original: file,
			diff:     blk("func compute(a int) int {\n\treturn a * 3\n}\nseven", "x"),
			wantErr:  []string{"block 1 of 1", "starting at line 3", "3 | func compute(a int) int {", "4 | \treturn a * 2", "No changes were made"},
			errBlock: 1, closestLine: 3},
		{name: "second block fails, first is not applied", original: file,
			diff:    blk("one", "ONE") + blk("no such line", "x"),
			wantErr: []string{"block 2 of 2", "none of the blocks were applied", "no such line"}, errBlock: 2, closestLine: -1},
	})
}
