package tool

import "reflect"

// requiredFields returns the indexes of the fields tagged
// validate:"required" of the input struct type t, and true, when those
// are all the validator checks of it: each such field of a scalar kind (a
// string, a number, a bool, which "required" checks by its zero value),
// no other validate tag, and no field the validator looks into (a struct,
// an embedded one, a pointer, an interface; slices and maps without a tag
// it leaves alone). An input of such a type whose required fields are
// all set is valid without asking the validator. Speed only: the
// validator costs about a microsecond per input
// (BenchmarkInputScans/validate, ./coordinator/; docs/benchmarks.md).
func requiredFields(t reflect.Type) (fields []int, ok bool) {
	if t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		tag, tagged := f.Tag.Lookup("validate")
		switch k := f.Type.Kind(); {
		case f.Anonymous:
			return nil, false // an embedded struct the validator looks into, exported or not
		case !f.IsExported():
			// The validator passes over other unexported fields.
		case tagged && tag != "required":
			return nil, false
		case scalarKind(k):
			if tagged {
				fields = append(fields, i)
			}
		case tagged || k != reflect.Slice && k != reflect.Map:
			return nil, false
		}
	}
	return fields, true
}

// scalarKind reports a kind the validator's "required" checks by its
// zero value and never looks into.
func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
