// Package price is where the data API gets token prices: a Source the
// module is given. With none (the default, which needs no network), the
// API leaves every price field out; it never makes one up.
package price

import (
	"context"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// Query asks for the price of one whole token.
type Query struct {
	// EVMChainID is the chain of the token.
	EVMChainID uint64
	// Token is the token contract; the zero address asks for the chain's
	// native token.
	Token common.Address
	// Currency is a lowercase currency code of the API ("usd", "eur", ...).
	Currency string
	// At is the time of the price; zero asks for the current price.
	At time.Time
}

// Source gives token prices.
type Source interface {
	// Price returns the price of one whole token (not one base unit);
	// ok is false when the source has none. An error is logged and the
	// price left out.
	Price(ctx context.Context, q Query) (value float64, ok bool, err error)
}
