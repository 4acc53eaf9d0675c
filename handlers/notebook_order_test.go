package handlers

import (
	"context"
	"regexp"
	"testing"

	"github.com/toolgate/toolgate/api"
)

// notebookCellID is an inserted cell's random id in the file.
var notebookCellID = regexp.MustCompile(`"id": "[0-9a-f]{8}"`)

// TestNotebookEditKeepsKeyOrder: a notebook is written back with its keys
// in the order they were found, as Claude Code writes it (JSON.parse then
// JSON.stringify with one space, no final newline), not sorted, and <, > and & as they are;
// an inserted cell's keys come in Claude Code's order. Two edits in a row
// keep the order of the first.
func TestNotebookEditKeepsKeyOrder(t *testing.T) {
	nb := `{"nbformat": 4, "nbformat_minor": 5, "metadata": {"z": 1, "a": 2},
		"cells": [{"source": "x < 1 && y > 2", "id": "a1", "cell_type": "markdown", "metadata": {}}]}`
	ws := workspaceWith(t, map[string]string{"n.ipynb": nb})
	call := editCall(ws, "t")
	if _, err := readLines(context.Background(), call, &ReadLinesInput{Path: "n.ipynb"}); err != nil {
		t.Fatal(err)
	}
	for _, in := range []NotebookEditInput{
		{Path: "n.ipynb", CellID: "a1", NewSource: "# Title & more"},
		{Path: "n.ipynb", CellID: "a1", NewSource: "## Next", CellType: "markdown", EditMode: "insert"},
	} {
		if _, err := notebookEdit(context.Background(), call, &in); err != nil {
			t.Fatal(err)
		}
	}
	got := readWS(t, ws, "n.ipynb")
	want := "{\n \"nbformat\": 4,\n \"nbformat_minor\": 5,\n \"metadata\": {\n  \"z\": 1,\n  \"a\": 2\n },\n \"cells\": [\n  {\n" +
		"   \"source\": \"# Title & more\",\n   \"id\": \"a1\",\n   \"cell_type\": \"markdown\",\n   \"metadata\": {}\n  },\n  {\n" +
		"   \"cell_type\": \"markdown\",\n   \"id\": \"ID\",\n   \"source\": \"## Next\",\n   \"metadata\": {}\n  }\n ]\n}"
	if got := notebookCellID.ReplaceAllString(got, `"id": "ID"`); got != want {
		t.Errorf("notebook written as\n%s\nwant\n%s", got, want)
	}
}

// TestNotebookEditNumberOutOfRange: a number beyond float64's range
// (JSON.parse's Infinity, which encoding/json cannot write back as it
// was) makes the notebook invalid for an edit, and the file is left as it
// was.
func TestNotebookEditNumberOutOfRange(t *testing.T) {
	nb := `{"n": 1e400, "cells": [{"id": "a1", "cell_type": "markdown", "source": ""}]}`
	ws := workspaceWith(t, map[string]string{"n.ipynb": nb})
	call := editCall(ws, "t")
	if _, err := readLines(context.Background(), call, &ReadLinesInput{Path: "n.ipynb"}); err != nil {
		t.Fatal(err)
	}
	_, err := notebookEdit(context.Background(), call, &NotebookEditInput{Path: "n.ipynb", CellID: "a1", NewSource: "x"})
	wantToolError(t, err, api.ToolCodeInvalidNotebook)
	if got := readWS(t, ws, "n.ipynb"); got != nb {
		t.Errorf("notebook changed to %s", got)
	}
}
