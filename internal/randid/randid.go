package randid

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
)

// Hex is n random bytes in lowercase hex (2n characters).
func Hex(n int) string {
	return hex.EncodeToString(bytes(n))
}

// Base64URL is n random bytes in unpadded URL-safe base64, for secrets that
// travel in a URL's query.
func Base64URL(n int) string {
	return base64.RawURLEncoding.EncodeToString(bytes(n))
}

func bytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never returns an error
	return b
}
