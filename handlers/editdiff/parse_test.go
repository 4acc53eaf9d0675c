package editdiff

import "testing"

func TestApplyMalformed(t *testing.T) {
	orig := "a\nb\n"
	runApplyCases(t, []applyCase{
		{name: "missing separator", original: orig, diff: "------- SEARCH\na\n+++++++ REPLACE\n",
			wantErr: []string{"line 3 (block 1)", "no ======="}, parseErr: true, errBlock: 1},
		{name: "doubled SEARCH marker", original: orig, diff: "------- SEARCH\n------- SEARCH\na\n=======\nb\n+++++++ REPLACE\n",
			wantErr: []string{"line 2", "second SEARCH marker"}, parseErr: true, errBlock: 1},
		{name: "doubled separator", original: orig, diff: "------- SEARCH\na\n=======\nb\n=======\nc\n+++++++ REPLACE\n",
			wantErr: []string{"line 5", "second ======="}, parseErr: true, errBlock: 1},
		{name: "REPLACE before SEARCH", original: orig, diff: "+++++++ REPLACE\n------- SEARCH\na\n=======\nb\n",
			wantErr: []string{"line 1", "REPLACE before any"}, parseErr: true},
		{name: "separator outside a block", original: orig, diff: "=======\n" + blk("a", "b"),
			wantErr: []string{"line 1", "outside a block"}, parseErr: true},
		{name: "prose before the first block", original: orig, diff: "Here is the change:\n" + blk("a", "b"),
			wantErr: []string{"line 1", "text outside a SEARCH/REPLACE block", "Here is the change"}, parseErr: true},
		{name: "text between blocks", original: orig, diff: blk("a", "A") + "and then\n" + blk("b", "B"),
			wantErr: []string{"line 6", "text outside"}, parseErr: true},
		{name: "ends inside SEARCH", original: orig, diff: "------- SEARCH\na\n",
			wantErr: []string{"ends inside SEARCH"}, parseErr: true, errBlock: 1},
		{name: "new SEARCH before REPLACE", original: orig, diff: "------- SEARCH\na\n=======\nA\n" + blk("b", "B"),
			wantErr: []string{"line 5 (block 1)", "before this block's +++++++ REPLACE"}, parseErr: true, errBlock: 1},
		{name: "empty diff", original: orig, diff: "", wantErr: []string{"no SEARCH/REPLACE blocks"}, parseErr: true},
		{name: "blank diff", original: orig, diff: "\n \n\t\n", wantErr: []string{"no SEARCH/REPLACE blocks"}, parseErr: true},
		{name: "indented marker is content, so the block never separates", original: orig,
			diff: "------- SEARCH\na\n  =======\nb\n+++++++ REPLACE\n", wantErr: []string{"no ======="}, parseErr: true},
	})
}
