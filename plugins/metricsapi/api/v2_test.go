package api

import (
	"encoding/json"
	"math"
	"testing"
)

// TestMetricsResponseJSON: AppendJSON writes what encoding/json writes of
// the same answer.
func TestMetricsResponseJSON(t *testing.T) {
	type plain MetricsResponse // the fields and tags, without AppendJSON
	for _, m := range []MetricsResponse{
		{Results: []Point{}},
		{Results: []Point{{Value: 0, Timestamp: 0}}},
		{Results: []Point{{Value: math.MaxUint64, Timestamp: 1_795_640_400}, {Value: 10_000_000_000_200, Timestamp: -3600}}, NextPageToken: "8d79c5c1-ecad-461b-8c77-c8fbec1fe02a"},
		{Results: []Point{{Value: 2, Timestamp: 7200}}, NextPageToken: "<\"\\\u2028>"},
	} {
		want, err := json.Marshal(plain(m))
		if err != nil {
			t.Fatal(err)
		}
		if got := m.AppendJSON([]byte("x")); string(got) != "x"+string(want) {
			t.Errorf("AppendJSON = %s, want x%s", got, want)
		}
	}
}
