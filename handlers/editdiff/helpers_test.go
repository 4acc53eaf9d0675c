package editdiff

import (
	"errors"
	"strings"
	"testing"
)

// blk renders one block with the standard markers; search and replace are
// given without their final newline ("" means an empty section).
func blk(search, replace string) string {
	return "------- SEARCH\n" + section(search) + "=======\n" + section(replace) + "+++++++ REPLACE\n"
}

func section(s string) string {
	if s == "" {
		return ""
	}
	return s + "\n"
}

// applyCase is one row of the Apply tables. Exactly one of want and
// wantErr describes the outcome.
type applyCase struct {
	name        string
	original    string
	diff        string
	want        string     // expected content on success
	strategies  []Strategy // expected per-block strategies; nil skips the check
	wantErr     []string   // substrings the error message must contain
	parseErr    bool       // error must be *ParseError (else *ApplyError)
	errBlock    int        // expected failing block (1-based); 0 skips
	closestLine int        // expected ApplyError.ClosestLine; 0 skips, -1 means none
}

func runApplyCases(t *testing.T, cases []applyCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Apply(tc.original, tc.diff)
			if tc.wantErr == nil {
				checkSuccess(t, tc, got, err)
				return
			}
			checkFailure(t, tc, got, err)
		})
	}
}

func checkSuccess(t *testing.T, tc applyCase, got Result, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("Apply error: %v", err)
	}
	if got.Content != tc.want {
		t.Errorf("content:\ngot  %q\nwant %q", got.Content, tc.want)
	}
	if tc.strategies == nil {
		return
	}
	var strategies []Strategy
	for _, b := range got.Blocks {
		strategies = append(strategies, b.Strategy)
	}
	if strings.Join(toStrings(strategies), ",") != strings.Join(toStrings(tc.strategies), ",") {
		t.Errorf("strategies: got %v, want %v", strategies, tc.strategies)
	}
}

func checkFailure(t *testing.T, tc applyCase, got Result, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("Apply succeeded with %q, want error containing %q", got.Content, tc.wantErr)
	}
	if got.Content != "" || got.Blocks != nil {
		t.Errorf("on error got Result %+v, want zero Result", got)
	}
	for _, s := range tc.wantErr {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q\ndoes not contain %q", err, s)
		}
	}
	var pe *ParseError
	var ae *ApplyError
	switch {
	case tc.parseErr && !errors.As(err, &pe):
		t.Fatalf("error type %T, want *ParseError", err)
	case !tc.parseErr && !errors.As(err, &ae):
		t.Fatalf("error type %T, want *ApplyError", err)
	}
	if tc.errBlock != 0 {
		gotBlock := 0
		if pe != nil {
			gotBlock = pe.Block
		} else {
			gotBlock = ae.Block
		}
		if gotBlock != tc.errBlock {
			t.Errorf("failing block: got %d, want %d", gotBlock, tc.errBlock)
		}
	}
	if ae != nil && tc.closestLine != 0 && ae.ClosestLine != max(tc.closestLine, 0) {
		t.Errorf("ClosestLine: got %d, want %d (closest %q)", ae.ClosestLine, max(tc.closestLine, 0), ae.Closest)
	}
}

func toStrings(s []Strategy) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = string(x)
	}
	return out
}
