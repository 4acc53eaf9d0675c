package codex

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/toolgate/toolgate/api"
	"github.com/toolgate/toolgate/coordinator/tool"
	"github.com/toolgate/toolgate/handlers"
	"github.com/toolgate/toolgate/internal/patch"
)

// ApplyPatchInput is Codex's apply_patch, a freeform tool: the custom
// tool call's text arrives as input.
type ApplyPatchInput struct {
	Input string `json:"input" validate:"required" jsonschema:"the patch: *** Begin Patch, *** Add File: / *** Update File: (optionally *** Move to:) / *** Delete File: sections, *** End Patch"`
}

func applyPatch() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ApplyPatchInput]{
		Name: "apply_patch",
		Description: "The `apply_patch` tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON. " +
			"*** Add File: creates a file or replaces it; every file of the patch changes or none does.",
		Targets: []string{"patch_files"},
		Grammar: patchGrammar,
		Map: func(env tool.MapEnv, in *ApplyPatchInput) (tool.Mapping, error) {
			// The sections, for the answer's file list; a patch that does
			// not parse is refused by patch_files in its own words.
			ops, _ := patch.Parse(in.Input)
			start := time.Now()
			return tool.Mapping{Tool: "patch_files", Input: handlers.PatchFilesInput{Patch: in.Input, AddReplaces: true},
				Result: func(res tool.Result, code string) tool.Result {
					if code != "" {
						return patchFailure(res, code, env.Workspace.Dir, ops)
					}
					return tool.TextResult(fmt.Sprintf("Exit code: 0\nWall time: %.1f seconds\nOutput:\n%s", time.Since(start).Seconds(), patchSummary(ops)))
				}}, nil
		},
	})
}

// patchSummary is Codex's list of the files a patch changed: added, then
// modified (a moved file under its new path), then deleted, each as the
// patch names it.
func patchSummary(ops []patch.FileOp) string {
	var added, modified, deleted []string
	for _, op := range ops {
		switch {
		case op.Kind == patch.Add:
			added = append(added, op.Path)
		case op.Kind == patch.Delete:
			deleted = append(deleted, op.Path)
		case op.MoveTo != "":
			modified = append(modified, op.MoveTo)
		default:
			modified = append(modified, op.Path)
		}
	}
	var b strings.Builder
	b.WriteString("Success. Updated the following files:\n")
	for _, group := range []struct {
		mark  string
		paths []string
	}{{"A", added}, {"M", modified}, {"D", deleted}} {
		for _, p := range group.paths {
			fmt.Fprintf(&b, "%s %s\n", group.mark, p)
		}
	}
	return b.String()
}

// failedHunk finds the file and the hunk in patch_files' hunk_failed text.
var failedHunk = regexp.MustCompile(`^\*\*\* Update File: (.+?): hunk (\d+) `)

// patchFailure words a refused patch as Codex's verification does: a
// hunk whose lines are not in the file gives the file's absolute path and
// the lines it expected; a file to update that does not exist, the read
// error. Other refusals of the patch keep toolgate's text after Codex's
// prefix; a call that never got to the patch (denied, cancelled) keeps
// toolgate's answer.
func patchFailure(res tool.Result, code, dir string, ops []patch.FileOp) tool.Result {
	text := res.LastText()
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, filepath.FromSlash(p))
	}
	switch code {
	case api.ToolCodeHunkFailed:
		if m := failedHunk.FindStringSubmatch(text); m != nil {
			n, _ := strconv.Atoi(m[2])
			for _, op := range ops {
				if op.Kind == patch.Update && filepath.Clean(op.Path) == filepath.Clean(m[1]) && n >= 1 && n <= len(op.Hunks) {
					return tool.ErrorResult(fmt.Sprintf("apply_patch verification failed: Failed to find expected lines in %s:\n%s",
						abs(op.Path), strings.Join(op.Hunks[n-1].Old(), "\n")))
				}
			}
		}
	case api.ToolCodeNotFound:
		for _, op := range ops {
			if !strings.Contains(text, op.Path+": the file does not exist") {
				continue
			}
			switch op.Kind {
			case patch.Update:
				return tool.ErrorResult(fmt.Sprintf("apply_patch verification failed: Failed to read file to update %s: No such file or directory (os error 2)", abs(op.Path)))
			case patch.Delete:
				return tool.ErrorResult(fmt.Sprintf("apply_patch verification failed: Failed to read %s: No such file or directory (os error 2)", abs(op.Path)))
			}
		}
	}
	if text == "" || !patchCodes[code] {
		return res
	}
	return tool.ErrorResult("apply_patch verification failed: " + text)
}

// patchCodes are the refusals of a patch itself, which Codex reports as
// a failed verification.
var patchCodes = map[string]bool{
	api.ToolCodeInvalidPatch: true, api.ToolCodeHunkFailed: true, api.ToolCodeNotFound: true, api.ToolCodeFileExists: true,
	api.ToolCodeBinaryFile: true, api.ToolCodeIsDirectory: true, api.ToolCodeNotRegular: true, api.ToolCodeFileChanged: true,
}

// ViewImageInput is Codex's view_image.
type ViewImageInput struct {
	Path string `json:"path" validate:"required" jsonschema:"Local filesystem path to an image file."`
}

// viewImage serves view_image with read_file, which answers an image file
// with the image.
func viewImage() *tool.DialectTool {
	return tool.NewDialectTool(tool.DialectSpec[ViewImageInput]{
		Name:        "view_image",
		Description: "View a local image file from the filesystem when visual inspection is needed. Use this for images already available on disk.",
		Targets:     []string{"read_file"},
		Map: func(env tool.MapEnv, in *ViewImageInput) (tool.Mapping, error) {
			abs := in.Path
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(env.Workspace.Dir, filepath.FromSlash(abs))
			}
			return tool.Mapping{Tool: "read_file", Input: handlers.ReadFileInput{Path: in.Path},
				Result: func(res tool.Result, code string) tool.Result {
					if code == api.ToolCodeNotFound {
						// Codex names the path it resolved.
						return tool.ErrorResult(fmt.Sprintf("unable to locate image at `%s`: No such file or directory (os error 2)", abs))
					}
					return imagesOnly(res)
				}}, nil
		},
	})
}

// imagesOnly is an image read_file answered, as Codex answers
// view_image: the image alone, without the text read_file puts after it
// for Cline. A result without an image stays as it is.
func imagesOnly(res tool.Result) tool.Result {
	var images []api.Content
	for _, c := range res.Content {
		if c.Type == api.TypeImage {
			images = append(images, c)
		}
	}
	if len(images) > 0 {
		res.Content = images
	}
	return res
}
