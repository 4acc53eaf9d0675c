package keys

const (
	ApiKeyPrefix      = "e2b_"
	AccessTokenPrefix = "sk_e2b_"
)
