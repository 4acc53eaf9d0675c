package conformance

// Commit makes dir a git repository with one commit of everything not
// ignored, as Generate does: a fixed author and date and no user or
// system git configuration, so the commit's id is the same each time.
func Commit(dir string) error { return commitAll(dir) }
