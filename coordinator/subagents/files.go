package subagents

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v4"
)

// defaultAgentTools are what an agent file that lists no tools gets:
// reading only.
var defaultAgentTools = []string{"read_file", "list_files", "search_files", "list_code_definition_names"}

// agentFile is one parsed agent file: YAML front-matter (name,
// description, tools) and a body that is the agent's system prompt.
type agentFile struct {
	Name         string   `yaml:"name"`
	Description  string   `yaml:"description"`
	Tools        []string `yaml:"tools"`
	SystemPrompt string   `yaml:"-"`
	// ToolName is the agent's tool, named as Cline names it
	// (ToolName, with a suffix when another agent's name gives the
	// same tool name: loadAgentTable).
	ToolName string `yaml:"-"`

	path  string
	size  int64
	mtime time.Time
}

// readAgentFile parses an agent file. tools may be a YAML list or a
// comma-separated string, as both forms are common.
func readAgentFile(path string) (*agentFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(b, []byte("---\n"))
	if !ok {
		return nil, fmt.Errorf("%s: no YAML front-matter", path)
	}
	front, body, ok := bytes.Cut(rest, []byte("\n---"))
	if !ok {
		return nil, fmt.Errorf("%s: unterminated front-matter", path)
	}
	var raw struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Tools       any    `yaml:"tools"`
	}
	if err := yaml.Unmarshal(front, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a := &agentFile{Name: raw.Name, Description: raw.Description, path: path, size: fi.Size(), mtime: fi.ModTime()}
	switch t := raw.Tools.(type) {
	case string:
		for _, s := range strings.Split(t, ",") {
			if s = strings.TrimSpace(s); s != "" {
				a.Tools = append(a.Tools, s)
			}
		}
	case []any:
		for _, s := range t {
			a.Tools = append(a.Tools, fmt.Sprint(s))
		}
	}
	if len(a.Tools) == 0 {
		a.Tools = defaultAgentTools
	}
	if a.Name == "" {
		a.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	a.Name = strings.TrimSpace(a.Name)
	if a.Name == "" || strings.ContainsFunc(a.Name, unicode.IsControl) {
		return nil, fmt.Errorf("agent name %q is empty or holds control characters", a.Name)
	}
	a.ToolName = ToolName(a.Name)
	_, body, _ = bytes.Cut(body, []byte("\n"))
	a.SystemPrompt = strings.TrimSpace(string(body))
	return a, nil
}

// findAgent returns the agent file in dir whose tool is toolName
// (loadAgentTable names the tools).
func findAgent(dir, toolName string) (*agentFile, error) {
	if a := loadAgentTable(dir).byTool[toolName]; a != nil {
		return a, nil
	}
	return nil, os.ErrNotExist
}

// unchanged reports whether the agent's file is still the one read.
func (a *agentFile) unchanged() bool {
	fi, err := os.Stat(a.path)
	return err == nil && fi.Size() == a.size && fi.ModTime().Equal(a.mtime)
}
