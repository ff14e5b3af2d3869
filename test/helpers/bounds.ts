/**
 * A measured figure against its bound. `assert.ok(figure < bound, message)` fails with its message
 * followed by "(ok)", which reads as a pass ("grew by 141.8 MiB … (ok)"); this one fails saying what
 * was measured, by how much it is over, and the bound.
 */
import { Assertion } from 'uvu/assert';

/** Fails unless `figure` is below `bound`; `what` names the figure ("heap growth in window 2"). */
export function expectBelow(figure: number, bound: number, what: string, unit = 'MiB'): void {
  if (figure < bound) return;
  throw new Assertion({
    message: `${what} is ${figure.toFixed(1)} ${unit}: over its bound of ${bound} ${unit}`,
    operator: '', // uvu prints no "(operator)" after the message
    actual: figure,
    expects: bound,
  });
}
