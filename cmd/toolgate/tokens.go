package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolgate/toolgate/server"
)

// A tokens file holds named tokens with scopes, hashed at rest:
//
//	# NAME  SCOPES          SHA256 of the token
//	agent   call            9f86d081884c7d65...
//	alice   approve,admin   60303ae22b998861...
//
// `toolgate token new NAME SCOPES --file F` makes a token, prints it once
// and appends its line. The server token (TOOLGATE_TOKEN, --token-file or
// the random one printed at start) keeps every scope.

// maxTokensFileBytes bounds the tokens file read at start-up.
const maxTokensFileBytes = 1 << 20

// loadTokensFile adds the lines of the config's tokens_file to its inline
// tokens and checks them all, listing every problem. The file is hidden
// from the sandbox: hashes are not tokens, but a command has no business
// reading who may approve it.
func loadTokensFile(cfg *fileConfig, configPath string) error {
	s := &cfg.Server
	if s.TokensFile != "" {
		path := s.TokensFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(configPath), path)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		f, err := os.Open(abs)
		if err != nil {
			return fmt.Errorf("server.tokens_file: %w", err)
		}
		defer f.Close()
		data, err := io.ReadAll(io.LimitReader(f, maxTokensFileBytes+1))
		if err != nil {
			return fmt.Errorf("server.tokens_file: %w", err)
		}
		if len(data) > maxTokensFileBytes {
			return fmt.Errorf("server.tokens_file: larger than %d bytes", maxTokensFileBytes)
		}
		tokens, err := parseTokenLines(data)
		if err != nil {
			return fmt.Errorf("server.tokens_file %s: %w", abs, err)
		}
		s.Tokens = append(s.Tokens, tokens...)
		s.TokensFile = abs
		cfg.Coordinator.StateFiles = append(cfg.Coordinator.StateFiles, abs)
	}
	if err := server.CheckTokens(s.Tokens); err != nil {
		return fmt.Errorf("server: %w", err)
	}
	return nil
}

// parseTokenLines reads "NAME SCOPES SHA256" lines; blank lines and lines
// starting with # are skipped. Every malformed line is listed.
func parseTokenLines(data []byte) ([]server.NamedToken, error) {
	var tokens []server.NamedToken
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			errs = append(errs, fmt.Errorf("line %d: want NAME SCOPES SHA256, got %d fields", n, len(f)))
			continue
		}
		tokens = append(tokens, server.NamedToken{Name: f[0], Scopes: strings.Split(f[1], ","), SHA256: strings.ToLower(f[2])})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	return tokens, errors.Join(errs...)
}

// tokenCommand is `toolgate token new NAME SCOPES [--file F]`: a fresh
// random token, printed once on stdout, and its tokens-file line, appended
// to F (created 0600) when given, else printed on stderr.
func tokenCommand(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token new", flag.ContinueOnError)
	fs.SetOutput(stderr)
	file := fs.String("file", "", "append the token's line to this tokens file")
	if len(args) == 0 || args[0] != "new" {
		return errors.New("usage: toolgate token new NAME SCOPES [--file F] (SCOPES: call,approve,admin,metrics)")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) > 2 { // flags after the positional words
		if err := fs.Parse(rest[2:]); err != nil {
			return err
		}
		rest = rest[:2]
	}
	if len(rest) != 2 {
		return errors.New("usage: toolgate token new NAME SCOPES [--file F] (SCOPES: call,approve,admin,metrics)")
	}
	token := randomToken()
	sum := sha256.Sum256([]byte(token))
	nt := server.NamedToken{Name: rest[0], Scopes: strings.Split(rest[1], ","), SHA256: hex.EncodeToString(sum[:])}
	all := []server.NamedToken{nt}
	if *file != "" { // the new name must not clash with the file's
		if data, err := os.ReadFile(*file); err == nil {
			old, err := parseTokenLines(data)
			if err != nil {
				return fmt.Errorf("%s: %w", *file, err)
			}
			all = append(old, nt)
		} else if !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := server.CheckTokens(all); err != nil {
		return err
	}
	line := fmt.Sprintf("%s %s %s\n", nt.Name, rest[1], nt.SHA256)
	if *file == "" {
		fmt.Fprint(stderr, "tokens file line: ", line)
	} else if err := appendLine(*file, line); err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	return nil
}

// appendLine appends line to path, creating it readable by its owner only.
func appendLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
