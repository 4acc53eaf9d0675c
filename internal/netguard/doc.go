// Package netguard decides which network addresses a tool that fetches
// pages for a model may reach, and enforces it where connections are made:
// URLs are checked before a request, every redirect is checked again, and
// the dialer checks the address it is about to connect to after DNS, so a
// name that resolves (or re-resolves) to a private address is refused too.
package netguard
