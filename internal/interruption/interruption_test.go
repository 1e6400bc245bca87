package interruption

import (
	"errors"
	"reflect"
	"testing"
)

// pods builds pods: leaving (noticed) ones l1.., marked or not, ready ones
// elsewhere r1.., and not-ready ones elsewhere p1.. (unschedulable or not).
func pods(leaving, leavingMarked, ready, pending, unschedulable int) []Pod {
	var out []Pod
	name := func(prefix string, i int) string { return prefix + string(rune('1'+i)) }
	for i := range leaving {
		out = append(out, Pod{Name: name("l", i), Noticed: true, Ready: true})
	}
	for i := range leavingMarked {
		out = append(out, Pod{Name: name("m", i), Noticed: true, Ready: true, Marked: true})
	}
	for i := range ready {
		out = append(out, Pod{Name: name("r", i), Ready: true})
	}
	for i := range pending {
		out = append(out, Pod{Name: name("p", i)})
	}
	for i := range unschedulable {
		out = append(out, Pod{Name: name("u", i), Unschedulable: true})
	}
	return out
}

func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		in   Input
		want Decision
	}{{
		// 4 replicas needed, all Ready, no notice: nothing changes.
		name: "no notice",
		in:   Input{Need: 4, Pods: pods(0, 0, 4, 0, 0)},
		want: Decision{Replicas: 4, ReadyElsewhere: 4},
	}, {
		// The notice arrives for the node of 2 of the 4 replicas: 2 more
		// replicas (6) so that 2 replacements start elsewhere at once; the
		// 2 leaving pods are marked for the later scale-down.
		name: "notice arrives",
		in:   Input{Need: 4, Pods: pods(2, 0, 2, 0, 0)},
		want: Decision{Replicas: 6, Surge: 2, Leaving: 2, ReadyElsewhere: 2, Mark: []string{"l1", "l2"}, Started: true},
	}, {
		// Next round: the 2 replacements exist, not Ready yet (Pending on
		// a booting node): keep 6, nothing new to mark, no new Event.
		name: "replacements starting",
		in:   Input{Need: 4, Surge: 2, Pods: pods(0, 2, 2, 2, 0)},
		want: Decision{Replicas: 6, Surge: 2, Leaving: 2, ReadyElsewhere: 2},
	}, {
		// One replacement Ready: 3 Ready elsewhere < 4 needed, keep 6.
		name: "one replacement ready",
		in:   Input{Need: 4, Surge: 2, Pods: pods(0, 2, 3, 1, 0)},
		want: Decision{Replicas: 6, Surge: 2, Leaving: 2, ReadyElsewhere: 3},
	}, {
		// Both Ready: 4 Ready elsewhere = need; back to 4 replicas, the
		// ReplicaSet deletes the 2 marked (cost -1000) pods.
		name: "replacements ready",
		in:   Input{Need: 4, Surge: 2, Pods: pods(0, 2, 4, 0, 0)},
		want: Decision{Replicas: 4, Leaving: 2, ReadyElsewhere: 4, Replaced: true},
	}, {
		// The round after: the leaving pods are not terminating yet; stay
		// at 4 without a second ReplacementsReady.
		name: "after the scale-down",
		in:   Input{Need: 4, Pods: pods(0, 2, 4, 0, 0)},
		want: Decision{Replicas: 4, Leaving: 2, ReadyElsewhere: 4},
	}, {
		// Replacements Ready but a leaving pod is not marked yet (marked
		// this round): the scale-down waits one round, or the ReplicaSet
		// might delete a replacement instead.
		name: "ready but unmarked",
		in:   Input{Need: 2, Surge: 1, Pods: pods(1, 0, 2, 0, 0)},
		want: Decision{Replicas: 3, Surge: 1, Leaving: 1, ReadyElsewhere: 2, Mark: []string{"l1"}},
	}, {
		// No room anywhere: the 2 replacements stay Unschedulable; the 2
		// leaving replicas are kept (6 replicas) while their node lives.
		name: "no room",
		in:   Input{Need: 4, Surge: 2, Pods: pods(0, 2, 2, 0, 2)},
		want: Decision{Replicas: 6, Surge: 2, Leaving: 2, ReadyElsewhere: 2, Stuck: 2},
	}, {
		// The same with a node booting for them: they wait, not stuck.
		name: "replacements waiting for a node",
		in:   Input{Need: 4, Surge: 2, Pods: pods(0, 2, 2, 0, 2), NodesComing: true},
		want: Decision{Replicas: 6, Surge: 2, Leaving: 2, ReadyElsewhere: 2},
	}, {
		// The node was reclaimed before the replacements ran: the leaving
		// pods are gone, the surge ends (6 -> 4) and the 2 Unschedulable
		// replacements are the 4's missing part (Lost, not Replaced).
		name: "node reclaimed first",
		in:   Input{Need: 4, Surge: 2, Pods: pods(0, 0, 2, 0, 2)},
		want: Decision{Replicas: 4, ReadyElsewhere: 2, Lost: true},
	}, {
		// A second node gets a notice during the surge: 1 + 2 leaving, the
		// surge grows from 1 to 3 (Started again); only the new pods are
		// marked.
		name: "second notice",
		in:   Input{Need: 4, Surge: 1, Pods: pods(2, 1, 1, 1, 0)},
		want: Decision{Replicas: 7, Surge: 3, Leaving: 3, ReadyElsewhere: 1, Mark: []string{"l1", "l2"}, Started: true},
	}, {
		// The need falls to 1 during the surge with 2 Ready elsewhere:
		// Replicas 1; the ReplicaSet removes the marked leaving pod and one
		// more (not the point here); the surge ends as Replaced.
		name: "need falls",
		in:   Input{Need: 1, Surge: 1, Pods: pods(0, 1, 2, 0, 0)},
		want: Decision{Replicas: 1, Leaving: 1, ReadyElsewhere: 2, Replaced: true},
	}, {
		// The burst ends (need 0): no surge, whatever leaves.
		name: "need zero",
		in:   Input{Need: 0, Surge: 2, Pods: pods(0, 2, 2, 0, 1)},
		want: Decision{Replicas: 0, Leaving: 2, ReadyElsewhere: 2},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decide(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decide:\n got %+v\nwant %+v", got, tt.want)
			}
			if got.Replicas != tt.in.Need+got.Surge {
				t.Errorf("replicas %d != need %d + surge %d", got.Replicas, tt.in.Need, got.Surge)
			}
		})
	}
}

func TestDecideInvalid(t *testing.T) {
	for _, in := range []Input{{Need: -1}, {Need: 1, Surge: -2}} {
		if _, err := Decide(in); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decide(%+v) error %v, want ErrInvalid", in, err)
		}
	}
}
