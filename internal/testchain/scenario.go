package testchain

import (
	"encoding/binary"
	"math/big"
	"math/rand/v2"
	"slices"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

// senders is how many accounts send transactions: the local key and four
// more, funded in the set-up block.
const senders = 5

// maxTxGas is the most gas a transaction of the scenario is given.
const maxTxGas = 2_000_000

// seed makes the scenario's choices; it is fixed so that a chain is a
// function of its Options.
const seed = 0xda7a

// scenario makes a chain's transactions. The chain maker gives the
// nonces; the token balances and the NFTs each sender holds are tracked
// here, so that every transaction does what it is meant to.
type scenario struct {
	opts       Options
	rng        *rand.Rand
	signer     types.Signer
	chainID    *big.Int
	contracts  map[string]contract
	keys       []key
	sender     map[common.Address]int // index in keys
	recipients []common.Address

	token20, token721, token1155, factory, batch common.Address

	own20   [][]common.Address                                      // per sender, the ERC-20 tokens it deployed
	nfts    [][]uint64                                              // per sender, the ERC-721 token IDs it owns
	nextNFT uint64                                                  // the next ERC-721 token ID to mint
	multi   map[common.Address]map[common.Address]map[uint64]uint64 // ERC-1155: token, holder, ID: balance
	salt    uint64                                                  // the next Factory.make salt

	total   int
	kinds   map[string]int
	sentBy  map[common.Hash]common.Address
	failing map[common.Hash]bool
	what    map[common.Hash]string
}

func newScenario(opts Options) (*scenario, error) {
	cs, err := loadContracts()
	if err != nil {
		return nil, err
	}
	local, err := crypto.HexToECDSA(localKeyHex)
	if err != nil {
		return nil, err
	}
	s := &scenario{
		opts: opts, rng: rand.New(rand.NewPCG(seed, uint64(opts.Mix))), chainID: big.NewInt(ChainID),
		contracts: cs, keys: []key{{priv: local, addr: crypto.PubkeyToAddress(local.PublicKey)}},
		sender: map[common.Address]int{}, own20: make([][]common.Address, senders), nfts: make([][]uint64, senders),
		multi: map[common.Address]map[common.Address]map[uint64]uint64{},
		kinds: map[string]int{}, sentBy: map[common.Hash]common.Address{}, failing: map[common.Hash]bool{}, what: map[common.Hash]string{},
	}
	s.signer = types.LatestSignerForChainID(s.chainID)
	for i := 1; i < senders; i++ {
		k, err := workerKey(i)
		if err != nil {
			return nil, err
		}
		s.keys = append(s.keys, k)
	}
	for i, k := range s.keys {
		s.sender[k.addr] = i
	}
	for i := range opts.Recipients {
		s.recipients = append(s.recipients, common.BigToAddress(big.NewInt(int64(0xda7a0000+i))))
	}
	return s, nil
}

// block fills one block: the set-up block first, then transactions until
// the block is full or the chain has all of them.
func (s *scenario) block(_ int, g *core.BlockGen) {
	if s.total == 0 {
		s.setup(g)
		return
	}
	start := g.Gas()
	for n := 0; s.total < s.opts.Txs; n++ {
		if (s.opts.TxsPerBlock > 0 && n == s.opts.TxsPerBlock) || start-g.Gas() > start/2-maxTxGas {
			return
		}
		if s.opts.Mix == TransfersAndCalls {
			from := s.rng.IntN(senders)
			if s.total%2 == 0 {
				s.erc20(g, from, s.token20, s.recipient())
			} else {
				s.mixed(g, from)
			}
			continue
		}
		s.varied(g)
	}
}

// setup deploys the contracts from the local key (the ERC-20 with a
// billion tokens, the ERC-721, the ERC-1155, the Factory, which makes its
// first children, and the batch ERC-1155), then funds the other senders
// with coins and tokens.
func (s *scenario) setup(g *core.BlockGen) {
	local := s.keys[0].addr
	deploy := func(name string, code []byte) common.Address {
		a := crypto.CreateAddress(local, g.TxNonce(local))
		s.send(g, 0, nil, nil, code, maxTxGas, "deploy "+name, false)
		return a
	}
	c := s.contracts
	s.token20 = deploy("Token20", c["Token20"].create(coins(1_000_000_000)))
	s.token721 = deploy("Token721", c["Token721"].bin)
	s.token1155 = deploy("Token1155", c["Token1155"].bin)
	s.factory = deploy("Factory", c["Factory"].bin)
	s.batch = deploy("Token1155Batch", c["Token1155Batch"].bin)
	s.make(g, 0)
	for _, k := range s.keys[1:] {
		s.send(g, 0, &k.addr, coins(1_000_000), nil, 21_000, "native transfer", false)
		s.send(g, 0, &s.token20, nil, c["Token20"].pack("transfer", k.addr, coins(1_000_000)), 100_000, "ERC-20 transfer", false)
	}
}

// varied adds one transaction of a random kind from a random sender.
func (s *scenario) varied(g *core.BlockGen) {
	from := s.rng.IntN(senders)
	switch r := s.rng.IntN(1000); {
	case r < 300:
		token := s.token20
		if own := s.own20[from]; len(own) > 0 && s.rng.IntN(3) == 0 {
			token = own[s.rng.IntN(len(own))]
		}
		s.erc20(g, from, token, s.to(from))
	case r < 320:
		s.erc20(g, from, s.token20, common.Address{}) // a burn
	case r < 420:
		to := s.to(from)
		s.send(g, from, &to, big.NewInt(1+s.rng.Int64N(1e15)), nil, 21_000, "native transfer", false)
	case r < 520:
		s.erc721(g, from)
	case r < 620:
		s.single1155(g, from)
	case r < 720:
		s.batch1155(g, from)
	case r < 950:
		s.mixed(g, from)
	case r < 960:
		s.make(g, from)
	case r < 970:
		k := s.keys[from].addr
		s.own20[from] = append(s.own20[from], crypto.CreateAddress(k, g.TxNonce(k)))
		s.send(g, from, nil, nil, s.contracts["Token20"].create(coins(1_000_000)), maxTxGas, "deploy Token20", false)
	default:
		s.send(g, from, &s.factory, nil, s.contracts["Factory"].pack("boom"), 300_000, "failing call", true)
	}
}

// erc20 transfers up to one token (to the zero address: a burn).
func (s *scenario) erc20(g *core.BlockGen, from int, token, to common.Address) {
	kind := "ERC-20 transfer"
	if to == (common.Address{}) {
		kind = "ERC-20 burn"
	}
	data := s.contracts["Token20"].pack("transfer", to, big.NewInt(1+s.rng.Int64N(1e18)))
	s.send(g, from, &token, nil, data, 100_000, kind, false)
}

// mixed calls Factory.mixed, which pays a recipient and the Factory's last
// child through internal calls, among calls that revert.
func (s *scenario) mixed(g *core.BlockGen, from int) {
	s.send(g, from, &s.factory, big.NewInt(4+s.rng.Int64N(1e9)), s.contracts["Factory"].pack("mixed", s.recipient()), 1_000_000, "Factory.mixed", false)
}

// make has the Factory create two children, with CREATE and CREATE2.
func (s *scenario) make(g *core.BlockGen, from int) {
	var salt [32]byte
	binary.BigEndian.PutUint64(salt[24:], s.salt)
	s.salt++
	s.send(g, from, &s.factory, big.NewInt(1000), s.contracts["Factory"].pack("make", salt), 1_000_000, "Factory.make", false)
}

// erc721 transfers an NFT the sender owns (to the zero address: a burn),
// or mints a new one.
func (s *scenario) erc721(g *core.BlockGen, from int) {
	k := s.keys[from].addr
	t := s.contracts["Token721"]
	if owned := s.nfts[from]; len(owned) > 0 && s.rng.IntN(2) == 0 {
		i := s.rng.IntN(len(owned))
		id := owned[i]
		s.nfts[from] = slices.Delete(owned, i, i+1)
		to := s.to(from)
		if s.rng.IntN(10) == 0 {
			to = common.Address{}
		}
		s.gainNFT(to, id)
		s.send(g, from, &s.token721, nil, t.pack("transferFrom", k, to, new(big.Int).SetUint64(id)), 200_000, "ERC-721 transfer", false)
		return
	}
	id := s.nextNFT
	s.nextNFT++
	to := k
	if s.rng.IntN(3) == 0 {
		to = s.recipient()
	}
	s.gainNFT(to, id)
	s.send(g, from, &s.token721, nil, t.pack("mint", to, new(big.Int).SetUint64(id)), 200_000, "ERC-721 mint", false)
}

// gainNFT records that to owns an NFT, when to is a sender.
func (s *scenario) gainNFT(to common.Address, id uint64) {
	if i, ok := s.sender[to]; ok {
		s.nfts[i] = append(s.nfts[i], id)
	}
}

// single1155 transfers some of an ERC-1155 token the sender holds (to the
// zero address: a burn), or mints some.
func (s *scenario) single1155(g *core.BlockGen, from int) {
	k := s.keys[from].addr
	t := s.contracts["Token1155"]
	if held := s.held(s.token1155, k); len(held) > 0 && s.rng.IntN(2) == 0 {
		id := held[s.rng.IntN(len(held))]
		v := 1 + s.rng.Uint64N(s.multi[s.token1155][k][id])
		to := s.to(from)
		if s.rng.IntN(10) == 0 {
			to = common.Address{}
		}
		s.move1155(s.token1155, k, to, id, v)
		s.send(g, from, &s.token1155, nil, t.pack("safeTransferFrom", k, to, big.NewInt(int64(id)), big.NewInt(int64(v)), []byte{}),
			200_000, "ERC-1155 transfer", false)
		return
	}
	id, v := 1+s.rng.Uint64N(6), 1+s.rng.Uint64N(100)
	s.move1155(s.token1155, common.Address{}, k, id, v)
	s.send(g, from, &s.token1155, nil, t.pack("mint", k, big.NewInt(int64(id)), big.NewInt(int64(v))), 200_000, "ERC-1155 mint", false)
}

// batch1155 transfers some of up to three ERC-1155 tokens the sender holds
// in one TransferBatch, burns some of one, or mints two or three at once.
func (s *scenario) batch1155(g *core.BlockGen, from int) {
	k := s.keys[from].addr
	t := s.contracts["Token1155Batch"]
	held := s.held(s.batch, k)
	switch r := s.rng.IntN(20); {
	case len(held) > 0 && r < 9:
		to := s.to(from)
		var ids, values []*big.Int
		for _, i := range s.rng.Perm(len(held))[:min(3, len(held))] {
			id := held[i]
			v := 1 + s.rng.Uint64N(s.multi[s.batch][k][id])
			s.move1155(s.batch, k, to, id, v)
			ids, values = append(ids, big.NewInt(int64(id))), append(values, big.NewInt(int64(v)))
		}
		s.send(g, from, &s.batch, nil, t.pack("safeBatchTransferFrom", k, to, ids, values, []byte{}), 400_000, "ERC-1155 batch transfer", false)
	case len(held) > 0 && r < 12:
		id := held[s.rng.IntN(len(held))]
		v := 1 + s.rng.Uint64N(s.multi[s.batch][k][id])
		s.move1155(s.batch, k, common.Address{}, id, v)
		s.send(g, from, &s.batch, nil, t.pack("burn", big.NewInt(int64(id)), big.NewInt(int64(v))), 200_000, "ERC-1155 burn", false)
	default:
		var ids, values []*big.Int
		for _, i := range s.rng.Perm(6)[:2+s.rng.IntN(2)] {
			id, v := uint64(i+1), 1+s.rng.Uint64N(100)
			s.move1155(s.batch, common.Address{}, k, id, v)
			ids, values = append(ids, big.NewInt(int64(id))), append(values, big.NewInt(int64(v)))
		}
		s.send(g, from, &s.batch, nil, t.pack("mintBatch", k, ids, values), 400_000, "ERC-1155 batch mint", false)
	}
}

// held lists the IDs of an ERC-1155 token that holder has some of, in
// order.
func (s *scenario) held(token, holder common.Address) []uint64 {
	var ids []uint64
	for id, v := range s.multi[token][holder] {
		if v > 0 {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// move1155 moves v of an ERC-1155 token ID from one holder to another; the
// zero address is the mint's source and the burn's sink.
func (s *scenario) move1155(token, from, to common.Address, id, v uint64) {
	if s.multi[token] == nil {
		s.multi[token] = map[common.Address]map[uint64]uint64{}
	}
	for _, h := range []common.Address{from, to} {
		if s.multi[token][h] == nil {
			s.multi[token][h] = map[uint64]uint64{}
		}
	}
	if from != (common.Address{}) {
		s.multi[token][from][id] -= v
	}
	if to != (common.Address{}) {
		s.multi[token][to][id] += v
	}
}

// to is a random recipient, or another sender one time in five.
func (s *scenario) to(from int) common.Address {
	if s.rng.IntN(5) == 0 {
		return s.keys[(from+1+s.rng.IntN(senders-1))%senders].addr
	}
	return s.recipient()
}

// recipient is a random account without a key.
func (s *scenario) recipient() common.Address { return s.recipients[s.rng.IntN(len(s.recipients))] }

// send signs and adds a transaction of a sender (to nil creates a
// contract); fail says it is meant to fail.
func (s *scenario) send(g *core.BlockGen, from int, to *common.Address, value *big.Int, data []byte, gas uint64, kind string, fail bool) {
	if value == nil {
		value = new(big.Int)
	}
	k := s.keys[from]
	tip := big.NewInt(1 + s.rng.Int64N(1000))
	tx := types.MustSignNewTx(k.priv, s.signer, &types.DynamicFeeTx{
		ChainID: s.chainID, Nonce: g.TxNonce(k.addr), To: to, Value: value, Data: data, Gas: gas,
		GasTipCap: tip, GasFeeCap: new(big.Int).Add(new(big.Int).Lsh(g.BaseFee(), 1), tip),
	})
	g.AddTx(tx)
	s.total++
	s.kinds[kind]++
	s.what[tx.Hash()] = kind
	s.sentBy[tx.Hash()] = k.addr
	if fail {
		s.failing[tx.Hash()] = true
	}
}
