package server

import (
	"reflect"
	"testing"
)

// TestConfigDefaultsFillEveryLimit: defaults, the one place the server
// section's defaults live, gives every number and duration a file may set
// a value, so no other code needs to know what a zero means.
func TestConfigDefaultsFillEveryLimit(t *testing.T) {
	var c Config
	c.defaults()
	v := reflect.ValueOf(c)
	for i := range v.NumField() {
		sf, f := v.Type().Field(i), v.Field(i)
		if sf.Tag.Get("json") == "-" || !f.CanInt() {
			continue
		}
		if f.Int() == 0 {
			t.Errorf("defaults leaves %s at 0", sf.Name)
		}
	}
}
