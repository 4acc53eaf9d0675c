package pkg

const Version = "0.6.13" // x-release-please-version
