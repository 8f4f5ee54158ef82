// Package migrate copies a data module's embedded store into PostgreSQL:
// the command `dataapi migrate` (docs/data-api.md, "Scaling out"). The
// copy goes in chunks, each written with its position in one transaction,
// so that a copy that stops resumes where it stopped; the chains' states
// are written last, and until then the indexer refuses the database.
// After it, the module configured on PostgreSQL goes on indexing from
// where the embedded store was.
package migrate

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/plugins/dataapi/store/pgstore"
	"github.com/chainhost/chainhost/sdk/ids"
)

// Options configures Run.
type Options struct {
	// Store is the embedded store's directory: <data-dir>/modules/<module>/store.
	Store string
	// Engine is the store's engine; "" finds it in the directory.
	Engine string
	// URL is the PostgreSQL database's connection URL.
	URL string
	// Chunk is the most records written per transaction; 0 means 5000.
	Chunk int
	// Progress receives a line of progress every Every (0: 2s) and at
	// each phase; nil discards.
	Progress io.Writer
	Every    time.Duration
}

// Run copies the store into the database, or finishes a copy that
// stopped.
func Run(ctx context.Context, o Options) error {
	if o.Chunk <= 0 {
		o.Chunk = 5000
	}
	if o.Every <= 0 {
		o.Every = 2 * time.Second
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	dir, err := filepath.Abs(o.Store)
	if err != nil {
		return err
	}
	if o.Engine == "" {
		if o.Engine, err = findEngine(dir); err != nil {
			return err
		}
	}
	kv, err := kvstore.Open(dir, kvstore.Options{Engine: o.Engine})
	if err != nil {
		return fmt.Errorf("open the embedded store (stop the node that uses it first): %w", err)
	}
	defer kv.Close()
	pg, err := pgstore.Open(ctx, pgstore.Options{URL: o.URL, Import: true})
	if err != nil {
		return err
	}
	defer pg.Close()
	source := o.Engine + ":" + dir
	st, err := pg.Import(ctx, source)
	if err != nil {
		return err
	}
	if st.Finished {
		fmt.Fprintf(o.Progress, "migrate: %s was copied already\n", source)
		return nil
	}
	states, err := kv.Chains(ctx)
	if err != nil {
		return err
	}
	if len(states) == 0 {
		return fmt.Errorf("%s holds no indexed chain: nothing to copy", source)
	}
	var totals = map[string]uint64{}
	for _, s := range states {
		totals["blocks"] += s.Next
		totals["transactions"] += s.CumulativeTxs
	}
	if st.Started {
		fmt.Fprintf(o.Progress, "migrate: resuming the copy of %s after %d records\n", source, st.Records)
	} else {
		fmt.Fprintf(o.Progress, "migrate: copying %s: %d chains, %d blocks, %d transactions\n", source, len(states), totals["blocks"], totals["transactions"])
	}
	now := time.Now()
	p := progress{w: o.Progress, every: o.Every, totals: totals, begin: now, last: now, lastChunk: now}
	err = kv.Export(ctx, st.Position, o.Chunk, func(c kvstore.Chunk) error {
		if err := pg.ImportChunk(ctx, source, c.Batch, c.Records, c.Next); err != nil {
			return err
		}
		p.add(c.Phase, c.Records)
		return nil
	})
	if err != nil {
		return err
	}
	p.phaseDone()
	if err := pg.FinishImport(ctx, source, states); err != nil {
		return err
	}
	chains := slices.SortedFunc(maps.Keys(states), func(a, b ids.ID) int { return a.Compare(b) })
	for _, chain := range chains {
		s := states[chain]
		h, _ := s.Height()
		fmt.Fprintf(o.Progress, "migrate: chain %s (EVM chain ID %d) indexed to block %d; its indexer goes on from block %d\n", chain, s.EVMChainID, h, s.Next)
	}
	fmt.Fprintf(o.Progress, "migrate: done: %d records in %s\n", p.all, time.Since(p.begin).Round(time.Millisecond))
	return nil
}

// findEngine returns the engine whose directory the store directory holds.
func findEngine(dir string) (string, error) {
	var found []string
	for _, e := range []string{kvstore.EnginePebble, kvstore.EngineLevelDB} {
		if fi, err := os.Stat(filepath.Join(dir, e)); err == nil && fi.IsDir() {
			found = append(found, e)
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s holds no embedded store (pebble/ or leveldb/): give the module's store directory, <data-dir>/modules/<module>/store", dir)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s holds stores of both engines: choose one with --engine", dir)
}

// progress prints what the copy did.
type progress struct {
	w      io.Writer
	every  time.Duration
	totals map[string]uint64

	phase      string
	n, all     uint64
	begin      time.Time // the copy's start
	last       time.Time // the last line's time
	lastAll    uint64    // all at the last line
	phaseBegin time.Time // the end of the previous phase
	lastChunk  time.Time // when the last chunk was written
}

// add counts records of a phase, printing a line now and then.
func (p *progress) add(phase string, records int) {
	if phase != p.phase {
		p.phaseDone()
		p.phase, p.n, p.phaseBegin = phase, 0, p.lastChunk
	}
	p.lastChunk = time.Now()
	p.n += uint64(records)
	p.all += uint64(records)
	if since := time.Since(p.last); since >= p.every {
		rate := float64(p.all-p.lastAll) / since.Seconds()
		p.last, p.lastAll = time.Now(), p.all
		if total := p.totals[phase]; total > 0 {
			fmt.Fprintf(p.w, "migrate: %s: %d of %d (%d%%), %.0f records/s\n", phase, p.n, total, 100*p.n/total, rate)
		} else {
			fmt.Fprintf(p.w, "migrate: %s: %d, %.0f records/s\n", phase, p.n, rate)
		}
	}
}

// phaseDone prints the count of the phase that ended with the last chunk.
func (p *progress) phaseDone() {
	if p.phase != "" {
		fmt.Fprintf(p.w, "migrate: %s: %d copied in %s\n", p.phase, p.n, p.lastChunk.Sub(p.phaseBegin).Round(time.Millisecond))
	}
}

// Main is the command `dataapi migrate` with args (after "migrate"); it
// returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dataapi migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o Options
	fs.StringVar(&o.Store, "store", "", "the embedded store's directory: <data-dir>/modules/<module>/store")
	fs.StringVar(&o.Engine, "engine", "", "its engine, "+kvstore.EnginePebble+" or "+kvstore.EngineLevelDB+" (default: the one found there)")
	fs.StringVar(&o.URL, "to", "", "the PostgreSQL database's connection URL (postgres://user@host:5432/db; the password may come from PGPASSWORD or ~/.pgpass)")
	fs.IntVar(&o.Chunk, "chunk", 5000, "the most records written per transaction")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: dataapi migrate --store DIR --to URL [--engine E] [--chunk N]\n\n"+
			"Copies the data module's embedded store into PostgreSQL; the node must be stopped. An interrupted copy\n"+
			"resumes when run again. Then configure the module with store.engine postgres and store.url URL\n"+
			"(docs/data-api.md, \"Scaling out\").\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if o.Store == "" || o.URL == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	if o.Engine != "" && !slices.Contains([]string{kvstore.EnginePebble, kvstore.EngineLevelDB}, o.Engine) {
		fmt.Fprintf(stderr, "dataapi migrate: --engine must be %s or %s, got %q\n", kvstore.EnginePebble, kvstore.EngineLevelDB, o.Engine)
		return 2
	}
	o.Progress = stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := Run(ctx, o); err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "dataapi migrate: interrupted; run it again to resume")
			return 1
		}
		fmt.Fprintf(stderr, "dataapi migrate: %v\n", err)
		return 1
	}
	return 0
}
