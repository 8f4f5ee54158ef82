package signedtx_test

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/signedtx"
)

// note is a one-field unsigned transaction of a test codec: type ID 7, a
// string.
type note struct{ Text string }

func (*note) TypeID() uint32        { return 7 }
func (n *note) Pack(p *avax.Packer) { p.Str(n.Text) }
func unpackNote(u *avax.Unpacker) *note {
	if typ := u.TypeID(); u.Err() == nil && typ != 7 {
		u.Failf("unknown type ID %d", typ)
	}
	return &note{Text: u.Str()}
}

var codec = signedtx.NewCodec("note", unpackNote)

var format = signedtx.BlockFormat[*note]{TypeID: 9, Name: "a note block", Unpack: codec.UnpackInBlock}

func key(t *testing.T) *avax.PrivateKey {
	t.Helper()
	k, err := avax.PrivateKeyFromBytes(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestSignParse(t *testing.T) {
	tx := signedtx.Sign(&note{Text: "hi"}, [][]*avax.PrivateKey{{key(t)}})
	unsigned := []byte{0, 0, 0, 0, 0, 7, 0, 2, 'h', 'i'}
	if !bytes.Equal(tx.UnsignedBytes(), unsigned) {
		t.Fatalf("unsigned bytes %x, want %x", tx.UnsignedBytes(), unsigned)
	}
	if !bytes.HasPrefix(tx.Bytes(), unsigned) || len(tx.Bytes()) != len(unsigned)+4+4+4+avax.SignatureLen {
		t.Fatalf("signed bytes %x: not the unsigned bytes and one credential of one signature", tx.Bytes())
	}
	if tx.ID() != sha256.Sum256(tx.Bytes()) {
		t.Fatal("ID is not the SHA-256 of the bytes")
	}
	got, err := codec.Parse(tx.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if got.Unsigned.Text != "hi" || got.ID() != tx.ID() || len(got.Creds) != 1 || got.Creds[0].Sigs[0] != tx.Creds[0].Sigs[0] {
		t.Fatalf("parsed %+v, want %+v", got, tx)
	}
}

func TestParseRefuses(t *testing.T) {
	good := signedtx.New(&note{Text: "hi"}, nil).Bytes()
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"trailing byte", append(append([]byte{}, good...), 0), "trailing"},
		{"other type", append([]byte{0, 0, 0, 0, 0, 8}, good[6:]...), "unknown type ID 8"},
		{"other version", append([]byte{0, 1}, good[2:]...), "codec version"},
		{"too large", make([]byte, signedtx.MaxSize+1), "more than the"},
		{"truncated", good[:len(good)-1], "parse note"},
	} {
		if _, err := codec.Parse(c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one with %q", c.name, err, c.want)
		}
	}
}

func TestBlock(t *testing.T) {
	list := []*signedtx.Tx[*note]{signedtx.New(&note{Text: "a"}, nil), signedtx.New(&note{Text: "bc"}, nil)}
	height := uint64(5)
	pack := func(p *avax.Packer) { p.Long(height) }
	e := format.Encode(pack, list)
	if e.ID() != sha256.Sum256(e.Bytes()) {
		t.Fatal("block ID is not the SHA-256 of the bytes")
	}
	var read uint64
	got, ge, err := format.Parse(e.Bytes(), func(u *avax.Unpacker) { read = u.Long() }, func(p *avax.Packer) { p.Long(read) })
	if err != nil {
		t.Fatal(err)
	}
	if read != height || len(got) != 2 || got[1].Unsigned.Text != "bc" || got[1].ID() != list[1].ID() || ge.ID() != e.ID() {
		t.Fatalf("parsed height %d, %d txs, block %s; want %d, 2, %s", read, len(got), ge.ID(), height, e.ID())
	}
	other := append([]byte{}, e.Bytes()...)
	other[5] = 8
	if _, _, err := format.Parse(other, func(u *avax.Unpacker) { u.Long() }, pack); err == nil || !strings.Contains(err.Error(), "want 9 (a note block)") {
		t.Errorf("block of type 8: error %v", err)
	}
}
