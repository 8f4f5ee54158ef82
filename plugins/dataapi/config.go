package dataapi

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/chainhost/chainhost/avax/evmremote"
	"github.com/chainhost/chainhost/plugins/dataapi/api"
	"github.com/chainhost/chainhost/plugins/dataapi/store/kvstore"
	"github.com/chainhost/chainhost/sdk/confjson"
	"github.com/chainhost/chainhost/sdk/rest"
)

// Config is the module's config: the `config:` of its entry under
// `modules:` in the node config, as strict JSON (an unknown key is an
// error naming it). docs/data-api.md lists every key with its default.
type Config struct {
	// APIConfig holds network, rate-limit and page-token-ttl (0 never
	// expires).
	rest.APIConfig
	// PublicURL is the node's base URL as clients reach it: rpcUrl and
	// wsUrl of /v1/chains start with it; "" takes the host each request
	// was sent to.
	PublicURL string `json:"public-url"`
	// Chains describes chains in /v1/chains, by alias, blockchain ID or
	// EVM chain ID.
	Chains map[string]api.ChainConfig `json:"chains"`
	// Indexer tunes the reading of blocks.
	Indexer IndexerConfig `json:"indexer"`
	// NFTMetadata says whether NFT metadata documents are fetched.
	NFTMetadata NFTMetadataConfig `json:"nft-metadata"`
	// Store chooses the store: an embedded engine, or PostgreSQL.
	Store StoreConfig `json:"store"`
	// Role is what the module does: roleFull indexes and serves, roleAPI
	// only serves, from a PostgreSQL database that an indexer writes.
	Role string `json:"role"`
	// PageTokenKey signs page tokens: 64 hex digits, the same on every
	// instance behind one load balancer; "" keeps a key of the module's
	// own in its data directory.
	PageTokenKey string `json:"page-token-key"`
	// UpstreamURL is, for roleAPI, the base URL of the node that runs the
	// chains (the indexer's): native balances and vertices are read there.
	UpstreamURL string `json:"upstream-url"`
	// ExternalChains are EVM chains other nodes run, indexed through their
	// JSON-RPC URLs (docs/data-api.md, "Indexing a chain of another
	// node"); an API-only instance lists the same ones, for their URLs.
	ExternalChains []evmremote.Chain `json:"external-chains"`
}

// The roles of a module (docs/data-api.md, "Scaling out").
const (
	// roleFull indexes the node's chains and serves the API.
	roleFull = "full"
	// roleAPI serves the API from what another instance indexes.
	roleAPI = "api"
)

// enginePostgres is the store engine of the PostgreSQL backend.
const enginePostgres = "postgres"

// IndexerConfig tunes the indexer.
type IndexerConfig struct {
	// BlocksPerRequest is the most blocks one indexer_getBlocks asks for.
	BlocksPerRequest int `json:"blocks-per-request"`
	// RequestsInFlight is how many indexer_getBlocks requests run at once.
	RequestsInFlight int `json:"requests-in-flight"`
}

// NFTMetadataConfig configures the reading of NFT metadata documents.
type NFTMetadataConfig struct {
	// Fetch turns on fetching http, https and ipfs documents; data: URIs
	// are read in any case.
	Fetch bool `json:"fetch"`
	// Timeout bounds one fetch.
	Timeout confjson.Duration `json:"timeout"`
	// MaxBytes is the largest document read.
	MaxBytes int64 `json:"max-bytes"`
	// IPFSGateway is the URL prefix ipfs:// documents are fetched from.
	IPFSGateway string `json:"ipfs-gateway"`
	// Parallel is how many documents are fetched at once.
	Parallel int `json:"parallel"`
	// AllowPrivateAddresses lets fetches reach private, loopback and
	// link-local addresses (docs/data-api.md, "NFT metadata").
	AllowPrivateAddresses bool `json:"allow-private-addresses"`
}

// StoreConfig configures the store.
type StoreConfig struct {
	// Engine is pebble or leveldb (embedded, in the data directory), or
	// postgres.
	Engine string `json:"engine"`
	// CacheMB is an embedded engine's block cache, in MiB.
	CacheMB int `json:"cache-mb"`
	// URL is PostgreSQL's connection URL; what it leaves out (the
	// password, say) comes from the PG* environment variables and
	// ~/.pgpass of the node's process.
	URL string `json:"url"`
	// MaxConns is the most connections to PostgreSQL this instance opens.
	MaxConns int `json:"max-conns"`
}

// defaultConfig returns the config of a module whose config is empty.
func defaultConfig() Config {
	return Config{
		APIConfig: rest.DefaultAPIConfig(),
		Indexer:   IndexerConfig{BlocksPerRequest: 100, RequestsInFlight: 4},
		NFTMetadata: NFTMetadataConfig{
			Timeout: confjson.Duration(5 * time.Second), MaxBytes: 1 << 20, IPFSGateway: "https://ipfs.io/ipfs/", Parallel: 8,
		},
		Store: StoreConfig{Engine: kvstore.EnginePebble, CacheMB: 64, MaxConns: 8},
		Role:  roleFull,
	}
}

// ParseConfig reads the module's config over the defaults and checks it
// (confjson.Parse: an unknown key or a bad duration is an error naming it;
// empty is the defaults).
func ParseConfig(b []byte) (Config, error) {
	c, err := confjson.Parse(b, defaultConfig())
	for i := range c.ExternalChains {
		c.ExternalChains[i] = c.ExternalChains[i].WithDefaults()
	}
	return c, err
}

// Validate checks the values.
func (c Config) Validate() error {
	problems := c.APIConfig.Problems()
	if u, err := url.Parse(c.PublicURL); c.PublicURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		problems = append(problems, fmt.Sprintf("public-url: must be an http or https URL, got %q", c.PublicURL))
	}
	for _, name := range sortedKeys(c.Chains) {
		if err := c.Chains[name].Validate(name); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if n := c.Indexer.BlocksPerRequest; n < 1 || n > 1024 {
		problems = append(problems, fmt.Sprintf("indexer.blocks-per-request: must be from 1 to 1024, got %d", n))
	}
	if n := c.Indexer.RequestsInFlight; n < 1 || n > 64 {
		problems = append(problems, fmt.Sprintf("indexer.requests-in-flight: must be from 1 to 64, got %d", n))
	}
	if c.NFTMetadata.Timeout <= 0 {
		problems = append(problems, "nft-metadata.timeout: must be above 0")
	}
	if c.NFTMetadata.MaxBytes < 1 {
		problems = append(problems, fmt.Sprintf("nft-metadata.max-bytes: must be at least 1, got %d", c.NFTMetadata.MaxBytes))
	}
	if n := c.NFTMetadata.Parallel; n < 1 || n > 256 {
		problems = append(problems, fmt.Sprintf("nft-metadata.parallel: must be from 1 to 256, got %d", n))
	}
	if g := c.NFTMetadata.IPFSGateway; g != "" {
		if u, err := url.Parse(g); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("nft-metadata.ipfs-gateway: must be an http or https URL, got %q", g))
		}
	}
	problems = c.Store.check(problems)
	if err := evmremote.ValidateList(c.ExternalChains); err != nil {
		problems = append(problems, strings.Split(err.Error(), "\n")...)
	}
	if c.Role != roleFull && c.Role != roleAPI {
		problems = append(problems, fmt.Sprintf("role: must be %s or %s, got %q", roleFull, roleAPI, c.Role))
	}
	if c.Role == roleAPI && c.Store.Engine != enginePostgres {
		problems = append(problems, fmt.Sprintf("role: %s needs store.engine %s (an embedded store has one process), got %q", roleAPI, enginePostgres, c.Store.Engine))
	}
	if _, err := c.pageTokenKey(); err != nil {
		problems = append(problems, err.Error())
	}
	if u, err := url.Parse(c.UpstreamURL); c.UpstreamURL != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		problems = append(problems, fmt.Sprintf("upstream-url: must be an http or https URL, got %q", c.UpstreamURL))
	}
	if c.Role == roleAPI && c.PageTokenKey == "" {
		problems = append(problems, fmt.Sprintf("page-token-key: role %s needs the key every instance of the database signs page tokens with", roleAPI))
	}
	switch {
	case c.Role == roleAPI && c.UpstreamURL == "":
		problems = append(problems, fmt.Sprintf("upstream-url: role %s needs the URL of the node that runs the chains (native balances and vertices are read there)", roleAPI))
	case c.Role == roleFull && c.UpstreamURL != "":
		problems = append(problems, fmt.Sprintf("upstream-url: only for role %s (role %s runs on the node of the chains)", roleAPI, roleFull))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// check appends the store settings' problems.
func (c StoreConfig) check(problems []string) []string {
	switch c.Engine {
	case kvstore.EnginePebble, kvstore.EngineLevelDB:
		if c.URL != "" {
			problems = append(problems, fmt.Sprintf("store.url: only for store.engine %s", enginePostgres))
		}
	case enginePostgres:
		if c.URL == "" {
			problems = append(problems, "store.url: store.engine postgres needs the database's connection URL (postgres://user@host:5432/db)")
		} else if _, err := pgx.ParseConfig(c.URL); err != nil {
			problems = append(problems, "store.url: "+err.Error())
		}
	default:
		problems = append(problems, fmt.Sprintf("store.engine: must be %s, %s or %s, got %q", kvstore.EnginePebble, kvstore.EngineLevelDB, enginePostgres, c.Engine))
	}
	if c.CacheMB < 8 {
		problems = append(problems, fmt.Sprintf("store.cache-mb: must be at least 8, got %d", c.CacheMB))
	}
	if c.MaxConns < 1 || c.MaxConns > 1000 {
		problems = append(problems, fmt.Sprintf("store.max-conns: must be from 1 to 1000, got %d", c.MaxConns))
	}
	return problems
}

// pageTokenKey returns the configured page token key, nil when none is.
func (c Config) pageTokenKey() ([]byte, error) {
	if c.PageTokenKey == "" {
		return nil, nil
	}
	key, err := hex.DecodeString(c.PageTokenKey)
	if err != nil || len(key) != 32 {
		return nil, errors.New("page-token-key: must be 64 hex digits (32 random bytes: openssl rand -hex 32), or empty")
	}
	return key, nil
}

// sortedKeys returns the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
