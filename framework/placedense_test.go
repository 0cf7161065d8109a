package framework

import (
	"reflect"
	"testing"
)

// TestPodPlaceStaysInRegisters guards podPlace's shape. Decision.place
// returns one some 40 times a step, and the callers copy it on; the
// compiler keeps a struct in registers only while it has at most four
// fields (of at most 4 words in all). A fifth field (placeAt's "set",
// now in placeSlot) sent every copy through the stack, where loads wider
// than the stores before them stall: the small sources' CPU time rose
// about 8% with their instructions unchanged (issue 21).
func TestPodPlaceStaysInRegisters(t *testing.T) {
	typ := reflect.TypeFor[podPlace]()
	if n := typ.NumField(); n > 4 {
		t.Errorf("podPlace has %d fields, want at most 4 (a fifth makes every copy go through memory)", n)
	}
	if s := typ.Size(); s > 4*8 {
		t.Errorf("podPlace is %d bytes, want at most 32", s)
	}
	for i := range typ.NumField() {
		if k := typ.Field(i).Type.Kind(); k == reflect.Struct || k == reflect.Array {
			t.Errorf("podPlace.%s is a %v, want a scalar", typ.Field(i).Name, k)
		}
	}
}
