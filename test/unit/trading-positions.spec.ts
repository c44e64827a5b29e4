/** Net position arithmetic (pure), given/when/then, exact to 18 fractional digits. */
import { formatDecimal, parseDecimal } from '../../src/platform/decimal/fixed18';
import { applyFill, FLAT, positionSide, type Position } from '../../src/modules/trading/domain/position';

const d = (s: string): bigint => parseDecimal(s, { allowSign: true });
const pos = (quantity: string, entry: string, pnl = '0'): Position => ({ quantity: d(quantity), entry_price: d(entry), realized_pnl: d(pnl) });
const fills = (start: Position, ...steps: Array<['BUY' | 'SELL', string, string]>): Position => steps.reduce((p, [side, price, size]) => applyFill(p, side, d(price), d(size)), start);
const wire = (p: Position) => ({ quantity: formatDecimal(p.quantity), entry_price: formatDecimal(p.entry_price), realized_pnl: formatDecimal(p.realized_pnl) });

describe('applyFill', () => {
  it('opens a long from flat at the fill price', () => {
    expect(wire(fills(FLAT, ['BUY', '100.5', '2']))).toEqual({ quantity: '2.000000000000000000', entry_price: '100.500000000000000000', realized_pnl: '0.000000000000000000' });
  });

  it('opens a short from flat (negative quantity)', () => {
    const p = fills(FLAT, ['SELL', '50', '0.25']);
    expect(wire(p)).toEqual({ quantity: '-0.250000000000000000', entry_price: '50.000000000000000000', realized_pnl: '0.000000000000000000' });
    expect(positionSide(p.quantity)).toBe('SHORT');
  });

  it('adds at the volume-weighted mean, rounded once HALF_EVEN', () => {
    // (2·100 + 1·101) / 3 = 100.333…  → …333 (next digit 3: down)
    expect(wire(fills(pos('2', '100'), ['BUY', '101', '1'])).entry_price).toBe('100.333333333333333333');
    // (1·100 + 2·101) / 3 = 100.666…  → …667 (next digit 6: up)
    expect(wire(fills(pos('1', '100'), ['BUY', '101', '2'])).entry_price).toBe('100.666666666666666667');
    // Exact ties go to the even last digit: 100.0000000000000000005 → …000, 100.0000000000000000015 → …002.
    expect(wire(fills(pos('1', '100'), ['BUY', '100.000000000000000001', '1'])).entry_price).toBe('100.000000000000000000');
    expect(wire(fills(pos('1', '100.000000000000000001'), ['BUY', '100.000000000000000002', '1'])).entry_price).toBe('100.000000000000000002');
    // Adding to a short works the same way.
    expect(wire(fills(pos('-1', '100.5'), ['SELL', '100', '0.3']))).toEqual({ quantity: '-1.300000000000000000', entry_price: '100.384615384615384615', realized_pnl: '0.000000000000000000' });
  });

  it('realizes (exit − entry) × qty when a long is reduced, keeping the entry', () => {
    expect(wire(fills(pos('3', '100.333333333333333333'), ['SELL', '110', '1']))).toEqual({
      quantity: '2.000000000000000000', entry_price: '100.333333333333333333', realized_pnl: '9.666666666666666667',
    });
  });

  it('realizes with the sign flipped when a short is reduced', () => {
    expect(wire(fills(pos('-2', '50'), ['BUY', '40', '1']))).toEqual({ quantity: '-1.000000000000000000', entry_price: '50.000000000000000000', realized_pnl: '10.000000000000000000' });
    expect(wire(fills(pos('-2', '50'), ['BUY', '55', '2']))).toEqual({ quantity: '0.000000000000000000', entry_price: '0.000000000000000000', realized_pnl: '-10.000000000000000000' });
  });

  it('closes to flat: entry resets, realized PnL accumulates; a new fill opens afresh', () => {
    const flat = fills(pos('2', '100', '1.5'), ['SELL', '90', '2']);
    expect(wire(flat)).toEqual({ quantity: '0.000000000000000000', entry_price: '0.000000000000000000', realized_pnl: '-18.500000000000000000' });
    expect(positionSide(flat.quantity)).toBe('FLAT');
    expect(wire(applyFill(flat, 'SELL', d('95'), d('1')))).toEqual({ quantity: '-1.000000000000000000', entry_price: '95.000000000000000000', realized_pnl: '-18.500000000000000000' });
  });

  it('flips through zero: the closed part realizes, the rest opens at the fill price', () => {
    expect(wire(fills(pos('2', '100'), ['SELL', '105', '5']))).toEqual({ quantity: '-3.000000000000000000', entry_price: '105.000000000000000000', realized_pnl: '10.000000000000000000' });
    expect(wire(fills(pos('-0.2', '100.75'), ['BUY', '99', '0.4']))).toEqual({ quantity: '0.200000000000000000', entry_price: '99.000000000000000000', realized_pnl: '0.350000000000000000' });
  });

  it('rounds each fill\'s realized PnL HALF_EVEN from its exact value', () => {
    // −0.5e-18 is a tie → 0 (even); −1.5e-18 → −2e-18.
    expect(wire(fills(pos('0.5', '100.000000000000000001'), ['SELL', '100', '0.5'])).realized_pnl).toBe('0.000000000000000000');
    expect(wire(fills(pos('0.5', '100.000000000000000003'), ['SELL', '100', '0.5'])).realized_pnl).toBe('-0.000000000000000002');
  });

  it('is the same whatever the grouping of a sequence of fills at one price', () => {
    const one = fills(FLAT, ['BUY', '10', '3']);
    const three = fills(FLAT, ['BUY', '10', '1'], ['BUY', '10', '1'], ['BUY', '10', '1']);
    expect(three).toEqual(one);
  });

  it('refuses a fill without a positive size', () => {
    expect(() => applyFill(FLAT, 'BUY', d('1'), 0n)).toThrow(RangeError);
  });
});
