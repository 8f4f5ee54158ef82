package pvm

import (
	"fmt"
	"math"

	"github.com/chainhost/chainhost/avax"
	"github.com/chainhost/chainhost/avax/pvmapi"
)

// paidBy returns what an active L1 validator paid from v.Since to t: the
// rate for each second, until its balance runs out (its last second pays
// what is left).
func paidBy(v *l1Validator, rate, t uint64) uint64 {
	if !v.Active || t <= v.Since {
		return 0
	}
	secs := t - v.Since
	if secs > v.Balance/rate {
		return v.Balance
	}
	return secs * rate
}

// runsOut returns the second at which an active validator's balance runs
// out: it becomes inactive then, having paid all of it.
func runsOut(v *l1Validator, rate uint64) uint64 {
	secs := v.Balance / rate
	if v.Balance%rate != 0 {
		secs++
	}
	if v.Since > math.MaxUint64-secs {
		return math.MaxUint64
	}
	return v.Since + secs
}

// payDays calls fn with what v pays in each UTC day of [from, to): the
// days [d*86400, (d+1)*86400) of unix time.
func payDays(v *l1Validator, rate, from, to uint64, fn func(day, amount uint64)) {
	for day := from / pvmapi.SecondsPerDay; day*pvmapi.SecondsPerDay < to; day++ {
		a := max(from, day*pvmapi.SecondsPerDay)
		b := min(to, (day+1)*pvmapi.SecondsPerDay)
		if amt := paidBy(v, rate, b) - paidBy(v, rate, a); amt > 0 {
			fn(day, amt)
		}
	}
}

// nextEvent returns the next time the state changes by itself: a staking
// period starting or ending, an L1 validator's balance running out.
func (s *chainState) nextEvent(rate uint64) (uint64, bool) {
	next, found := uint64(math.MaxUint64), false
	for _, st := range s.stakers {
		t := st.End
		if !st.Current {
			t = st.Start
		}
		if t < next {
			next, found = t, true
		}
	}
	for _, v := range s.l1 {
		if v.Active {
			if t := runsOut(v, rate); t < next {
				next, found = t, true
			}
		}
	}
	return next, found
}

// advance moves the diff's time to t (not before its time): active L1
// validators pay for the seconds in between, attributed to their UTC days,
// and those whose balance runs out by t become inactive; stakers whose
// period started by t become current, those whose period ended by t leave
// and their stake becomes UTXOs; register messages expired by t are
// forgotten. The builder makes a block at every such event, so nothing
// happens strictly between the diff's time and t.
func (d *diff) advance(t, rate uint64) error {
	if t < d.Time {
		return fmt.Errorf("time %d is before the chain's time %d", t, d.Time)
	}
	from := d.Time
	for _, id := range sortedIDs(d.l1) {
		v := d.l1[id]
		if !v.Active || t <= v.Since {
			continue
		}
		payDays(v, rate, max(from, v.Since), t, func(day, amount uint64) { d.addFee(v, day, amount) })
		v.Balance -= paidBy(v, rate, t)
		v.Since = t
		if v.Balance == 0 {
			v.Active = false
		}
		d.touchL1(id)
	}
	for _, id := range sortedIDs(d.stakers) {
		st := d.stakers[id]
		if !st.Current && st.Start <= t {
			st.Current = true
			d.touchStaker(id)
		}
		if st.Current && st.End <= t {
			for _, b := range st.Stake {
				u, err := avax.ParseUTXO(b)
				if err != nil {
					return fmt.Errorf("stake of %s: %w", id, err)
				}
				d.created = append(d.created, u)
			}
			delete(d.stakers, id)
			d.touchStaker(id)
		}
	}
	for _, id := range sortedIDs(d.expiries) {
		if d.expiries[id] <= t {
			delete(d.expiries, id)
			d.touchExpiry(id)
		}
	}
	d.Time = t
	return nil
}
