package indexer

import "github.com/prometheus/client_golang/prometheus"

// metrics are the indexer's collectors, by chain (primary alias).
type metrics struct {
	height       *prometheus.GaugeVec
	accepted     *prometheus.GaugeVec
	lag          *prometheus.GaugeVec
	blocks       *prometheus.CounterVec
	txs          *prometheus.CounterVec
	errors       *prometheus.CounterVec
	fetchSeconds *prometheus.HistogramVec
	writeSeconds *prometheus.HistogramVec
}

func newMetrics() *metrics {
	chain := []string{"chain"}
	return &metrics{
		height: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dataapi_indexer_height", Help: "Number of the last block indexed.",
		}, chain),
		accepted: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dataapi_indexer_accepted_height", Help: "Number of the last block the chain's index holds.",
		}, chain),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "dataapi_indexer_lag_blocks", Help: "Accepted blocks not indexed yet.",
		}, chain),
		blocks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dataapi_indexer_blocks_total", Help: "Blocks indexed since the module started.",
		}, chain),
		txs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dataapi_indexer_transactions_total", Help: "Transactions indexed since the module started.",
		}, chain),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "dataapi_indexer_errors_total", Help: "Times indexing stopped on an error and started over.",
		}, chain),
		fetchSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "dataapi_indexer_fetch_seconds", Help: "Duration of one indexer_getBlocks request.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 8),
		}, chain),
		writeSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "dataapi_indexer_index_seconds", Help: "Duration of deriving and writing one answer's blocks.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 8),
		}, chain),
	}
}

// register registers every collector on r.
func (m *metrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.height, m.accepted, m.lag, m.blocks, m.txs, m.errors, m.fetchSeconds, m.writeSeconds} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}
