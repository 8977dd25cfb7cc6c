// The element builder of the dashboard's pages. Every string goes in as a text node or
// an attribute value, never as HTML: a passcode named <img src=x onerror=alert(1)> shows
// as those characters. Nothing here touches the document until called, so the modules
// that use it load in Node too (test/dashboard/ imports some of them).

/** An attribute value: `true` sets it empty, `false`, `null` and `undefined` leave it out; `on…` takes a listener. */
export type Attribute = string | number | boolean | null | undefined | ((event: Event) => unknown)
/** A child: text, an element, nothing, or a list of them. */
export type Child = string | number | Node | null | undefined | false | readonly Child[]
/** An element's attributes, as {@link h} takes them. */
export type Attributes = Readonly<Record<string, Attribute>>

function fill<E extends Element>(element: E, attributes: Attributes | null | undefined, children: readonly Child[]): E {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (typeof value === 'function') element.addEventListener(name.slice(2), value)
    else element.setAttribute(name, value === true ? '' : String(value))
  }
  for (const child of children.flat(Infinity as 1) as Exclude<Child, readonly Child[]>[]) {
    if (child === undefined || child === null || child === false) continue
    element.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return element
}

/**
 * Creates an HTML element; strings among the children become text nodes.
 *
 * @example
 * ```ts
 * h('button', { type: 'button', onclick: () => save() }, 'Save')
 * ```
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes?: Attributes | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attributes, children)
}

/** Creates an SVG element (the usage chart's bars), sized by attributes: the CSP allows no inline style. */
export function svg(tag: string, attributes?: Attributes | null, ...children: Child[]): SVGElement {
  return fill(document.createElementNS('http://www.w3.org/2000/svg', tag), attributes, children)
}

/** The element the page itself put there (a form's own input, a region of the page). */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the element it put there
export function $<T extends Element = HTMLInputElement>(root: ParentNode, selector: string): T {
  return root.querySelector<T>(selector)!
}

/** Text only a screen reader reads ("Usage" + " of Billing"). */
export function hidden(text: string): HTMLElement {
  return h('span', { class: 'visually-hidden' }, text)
}
