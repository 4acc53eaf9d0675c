package coordinator

import "reflect"

// requiredSet reports that the validator would find nothing wrong with in,
// a pointer to a tool's input struct whose type's tool.Tool.RequiredFields
// are fields (only true: checking them is all the validator would do):
// each of them is set. Most calls' inputs are such (read_file's path) and
// valid; false says nothing, and the validator decides and words what is
// wrong. Speed only: BenchmarkInputScans/validate (./coordinator/,
// docs/benchmarks.md); TestRequiredSetAgrees holds it to the validator.
func requiredSet(in any, fields []int, only bool) bool {
	if !only {
		return false
	}
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	v = v.Elem()
	for _, i := range fields {
		if v.Field(i).IsZero() {
			return false
		}
	}
	return true
}
