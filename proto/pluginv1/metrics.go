package pluginv1

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// metricsFormat is the encoding of MetricsResponse.families.
var metricsFormat = expfmt.NewFormat(expfmt.TypeProtoDelim)

// EncodeMetrics encodes metric families for MetricsResponse.families.
func EncodeMetrics(families []*dto.MetricFamily) ([]byte, error) {
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, metricsFormat)
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return nil, fmt.Errorf("encode metric %s: %w", mf.GetName(), err)
		}
	}
	return buf.Bytes(), nil
}

// DecodeMetrics decodes MetricsResponse.families.
func DecodeMetrics(b []byte) ([]*dto.MetricFamily, error) {
	dec := expfmt.NewDecoder(bytes.NewReader(b), metricsFormat)
	var out []*dto.MetricFamily
	for {
		mf := &dto.MetricFamily{}
		err := dec.Decode(mf)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decode metric family %d: %w", len(out), err)
		}
		out = append(out, mf)
	}
}
