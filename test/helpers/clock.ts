/** `run` with `Date.now` moved on by `seconds`, put back when it settles. */
export async function later<T>(seconds: number, run: () => Promise<T>): Promise<T> {
  const real = Date.now;
  const at = real() + seconds * 1000;
  Date.now = () => at;
  try {
    return await run();
  } finally {
    Date.now = real;
  }
}
