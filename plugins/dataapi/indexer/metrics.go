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
	rate         *prometheus.GaugeVec
	eta          *prometheus.GaugeVec
	reorgs       *prometheus.CounterVec
}

func newMetrics() *metrics {
	return &metrics{
		height:       gauge("dataapi_indexer_height", "Number of the last block indexed."),
		accepted:     gauge("dataapi_indexer_accepted_height", "Number of the last block the chain's index holds."),
		lag:          gauge("dataapi_indexer_lag_blocks", "Accepted blocks not indexed yet."),
		blocks:       counter("dataapi_indexer_blocks_total", "Blocks indexed since the module started."),
		txs:          counter("dataapi_indexer_transactions_total", "Transactions indexed since the module started."),
		errors:       counter("dataapi_indexer_errors_total", "Times indexing stopped on an error and started over."),
		fetchSeconds: seconds("dataapi_indexer_fetch_seconds", "Duration of one read of blocks: indexer_getBlocks, or an external chain's JSON-RPC batches."),
		writeSeconds: seconds("dataapi_indexer_index_seconds", "Duration of deriving and writing one answer's blocks."),
		rate:         gauge("dataapi_indexer_blocks_per_second", "Blocks indexed per second over the last seconds."),
		eta:          gauge("dataapi_indexer_eta_seconds", "Time left to index the accepted blocks at the current rate; 0 when caught up."),
		reorgs:       counter("dataapi_indexer_reorgs_total", "Reorganisations of an external chain rolled back."),
	}
}

// byChain is the label of every collector: the chain's primary alias.
var byChain = []string{"chain"}

func gauge(name, help string) *prometheus.GaugeVec {
	return prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, byChain)
}

func counter(name, help string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, byChain)
}

// seconds is a histogram of durations from 1 ms to about 16 s.
func seconds(name, help string) *prometheus.HistogramVec {
	return prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: name, Help: help, Buckets: prometheus.ExponentialBuckets(0.001, 4, 8)}, byChain)
}

// register registers every collector on r.
func (m *metrics) register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{m.height, m.accepted, m.lag, m.blocks, m.txs, m.errors, m.fetchSeconds, m.writeSeconds, m.rate, m.eta, m.reorgs} {
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}
