package interruption

import (
	"fmt"
	"testing"
)

// FuzzDecide: no panic; on success the replicas are Need + Surge, the surge
// and counts are never negative, Leaving counts the noticed pods, and Mark
// names exactly the noticed pods not marked yet.
func FuzzDecide(f *testing.F) {
	// Seeds shaped like TestDecide's rows: a notice with room, a surge
	// whose replacements are Ready, a surge whose pods are gone, none.
	f.Add(int32(3), int32(0), true, []byte{1, 1, 0, 1, 0, 1, 0, 1, 0})
	f.Add(int32(3), int32(1), false, []byte{3, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0})
	f.Add(int32(2), int32(2), false, []byte{0, 1, 0, 1})
	f.Add(int32(0), int32(0), true, []byte{})
	f.Add(int32(-1), int32(0), true, []byte{1})
	f.Fuzz(func(t *testing.T, need, surge int32, coming bool, raw []byte) {
		in := Input{Need: need % 1000, Surge: surge % 1000, NodesComing: coming}
		for _, b := range raw {
			if len(in.Pods) == 200 {
				break
			}
			in.Pods = append(in.Pods, Pod{Name: fmt.Sprintf("p%03d", len(in.Pods)), Noticed: b&1 != 0, Ready: b&2 != 0, Unschedulable: b&4 != 0, Marked: b&8 != 0})
		}
		d, err := Decide(in)
		if err != nil {
			return
		}
		if d.Replicas != in.Need+d.Surge || d.Surge < 0 || d.Leaving < 0 || d.ReadyElsewhere < 0 || d.Stuck < 0 {
			t.Fatalf("Decide(%+v) = %+v: replicas must be need + surge, counts >= 0", in, d)
		}
		var leaving int32
		unmarked := map[string]bool{}
		for _, p := range in.Pods {
			if p.Noticed {
				leaving++
				if !p.Marked {
					unmarked[p.Name] = true
				}
			}
		}
		if d.Leaving != leaving {
			t.Fatalf("Leaving = %d, want the %d noticed pods", d.Leaving, leaving)
		}
		if len(d.Mark) != len(unmarked) {
			t.Fatalf("Mark = %v, want the noticed unmarked pods %v", d.Mark, unmarked)
		}
		for _, name := range d.Mark {
			if !unmarked[name] {
				t.Fatalf("Mark names %s, which is not a noticed unmarked pod", name)
			}
		}
		if d.Replaced && d.Lost {
			t.Fatalf("a surge both Replaced and Lost: %+v", d)
		}
	})
}
