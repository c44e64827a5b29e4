/**
 * The order flow of the HTTP benchmark and the profiler: a new resting BUY limit order per request. The factory is
 * serialized into a file in a temp dir (autocannon's worker mode takes a module path, not a function), so it must
 * stay self-contained: no imports, no outer variables.
 * BTC-PERP (DEMO_MARKETS): tick 0.5, contract size and minimum quantity 0.001. All BUY at 1000-10999.5 USD: nothing
 * crosses, every order rests (NEW, then OPEN once a matching engine has booked it).
 */
export function placementSetupFactory(): (request: { body?: string }) => { body: string } {
  const prefix = Math.random().toString(36).slice(2, 8);
  let i = 0;
  return (request) => {
    i += 1;
    const price = (1000 + (i % 20000) / 2).toFixed(1);
    return { ...request, body: `{"direction":"BUY","market":"BTC-PERP","order_size":"0.010","limit_price":"${price}","external_ref":"bench-${prefix}-${i}"}` };
  };
}
