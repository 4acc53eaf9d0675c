package cline

import "testing"

// TestNotebookText: read_file shows a notebook as Cline does: code cells'
// outputs emptied (added last where missing), keys in their order (a
// repeated key where it first stood), JSON.stringify's numbers and
// escapes, one space of indent; anything else comes back unchanged.
func TestNotebookText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"code and markdown",
			`{"cells": [{"cell_type": "code", "outputs": [{"text": "x"}], "source": ["a"]}, {"cell_type": "markdown", "outputs": [1]}], "nbformat": 4}`,
			"{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"outputs\": [],\n   \"source\": [\n    \"a\"\n   ]\n  },\n" +
				"  {\n   \"cell_type\": \"markdown\",\n   \"outputs\": [\n    1\n   ]\n  }\n ],\n \"nbformat\": 4\n}"},
		{"outputs added last",
			`{"z": {}, "cells": [{"cell_type": "code", "source": "s"}], "a": []}`,
			"{\n \"z\": {},\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"source\": \"s\",\n   \"outputs\": []\n  }\n ],\n \"a\": []\n}"},
		{"repeated key stays first",
			`{"b": 1, "cells": [], "b": 2}`,
			"{\n \"b\": 2,\n \"cells\": []\n}"},
		{"numbers as JavaScript prints them",
			`{"cells": [], "n": [1.0, -0.5, 1e21, 1.5e-7, 0.000001, 1e400, 12345678901234567890]}`,
			"{\n \"cells\": [],\n \"n\": [\n  1,\n  -0.5,\n  1e+21,\n  1.5e-7,\n  0.000001,\n  null,\n  12345678901234567000\n ]\n}"},
		{"escapes as JSON.stringify",
			`{"cells": [], "s": "q\" b\\ \b\f\n\r\t \u0001 <&> \u2028 é"}`,
			"{\n \"cells\": [],\n \"s\": \"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 <&> \u2028 é\"\n}"},
		{"a string cell spreads into its characters",
			`{"cells": ["ab", true]}`,
			"{\n \"cells\": [\n  {\n   \"0\": \"a\",\n   \"1\": \"b\"\n  },\n  {}\n ]\n}"},
		{"byte order mark dropped", "\uFEFF{\"cells\": []}", "{\n \"cells\": []\n}"},
		{"a null cell leaves the text", `{"cells": [null]}`, `{"cells": [null]}`},
		{"no cells", `{"nbformat": 4}`, `{"nbformat": 4}`},
		{"cells not a list", `{"cells": {}}`, `{"cells": {}}`},
		{"not an object", `[1]`, `[1]`},
		{"not JSON", `{"cells": [`, `{"cells": [`},
		{"text after the value", `{"cells": []} x`, `{"cells": []} x`},
		{"a second value", `{"cells": []} {}`, `{"cells": []} {}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := notebookText([]byte(tc.in)); got != tc.want {
				t.Errorf("notebookText(%s) =\n%s\nwant\n%s", tc.in, got, tc.want)
			}
		})
	}
}
