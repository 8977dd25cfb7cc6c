/**
 * Gives a class the `name` it is exported as, whatever a bundler or minifier does to
 * its declaration (CommonJS builds can turn `class X` into `_class`, minifiers into
 * `Xy`), so that `X.name`, `error.name` and `console.log(error)` stay readable.
 * Called from a `static {}` block of the class, with the name as a string literal.
 *
 * @internal
 */
export function setClassName(target: abstract new (...args: never[]) => unknown, name: string): void {
  Object.defineProperty(target, 'name', { value: name, configurable: true })
}
