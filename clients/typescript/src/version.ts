/** The package's version; its major is the version of toolgate's HTTP API (openapi.yaml info.version) it speaks. */
export const VERSION = '1.0.0';
