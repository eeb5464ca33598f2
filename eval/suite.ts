/**
 * The built-in evaluation suite (`npm run eval`): small tasks on pages this
 * runner serves on loopback, each scored from what the page itself
 * reported (its own state, posted to the site), never from the model's
 * words. The goals are plain English a model reads; they are also the
 * sentences the test stand-ins' rule-based policy understands.
 */

export interface EvalTask {
  name: string;
  /** What the task exercises. */
  about: string;
  /** The page the run starts on. */
  start: string;
  /** The goal, given the site's origin. */
  goal(origin: string): string;
  /** Whether the page's own state shows the task done. */
  passed(state: Record<string, unknown>): boolean;
  /**
   * Confirm rules (config `confirm.rules`) the suite pre-approves for the task's session: its acts would
   * otherwise wait for a person's yes (the shop's Checkout and Place order are what the default `payments`
   * rule names). The pages are the suite's own, so nothing is spent.
   */
  approves?: string[];
}

/** The script every page shares: `report({…})` merges the page's state into the site's record of this task. */
const REPORT = `<script>function report(change) { return fetch('/state', { method: 'POST', body: JSON.stringify(change) }); }</script>`;

const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title>${REPORT}<body>${body}</body></html>`;

export const PAGES: Record<string, string> = {
  '/form': page(
    'Sign up',
    `<h1>Sign up</h1>
<form id="f">
  <label>Full name <input id="name" required></label><br>
  <label>Email <input id="email" type="email" required></label><br>
  <label>Plan <select id="plan"><option>Free</option><option>Pro</option><option>Team</option></select></label><br>
  <button>Sign up</button>
</form>
<p id="out"></p>
<script>f.onsubmit = async (event) => { event.preventDefault();
  await report({ signedUp: { name: document.getElementById('name').value, email: document.getElementById('email').value, plan: document.getElementById('plan').value } });
  out.textContent = 'Welcome, ' + document.getElementById('name').value; };</script>`,
  ),
  '/list': page(
    'Shopping list',
    `<h1>Shopping list</h1>
<form id="add"><label>New item <input id="item"></label> <button>Add</button></form>
<ul id="items"></ul><p id="left">Left: 0</p>
<script>const items = [];
function render() { const list = document.getElementById('items'); list.replaceChildren(...items.map((entry, index) => {
    const li = document.createElement('li'); const label = document.createElement('label'); const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = entry.done; box.onchange = () => { entry.done = box.checked; render(); };
    label.append(box, ' ' + entry.title); li.append(label); return li; }));
  left.textContent = 'Left: ' + items.filter((entry) => !entry.done).length; report({ items }); }
add.onsubmit = (event) => { event.preventDefault(); const input = document.getElementById('item'); if (input.value.trim()) items.push({ title: input.value.trim(), done: false }); input.value = ''; render(); };</script>`,
  ),
  '/shop': page('Shop', `<h1>Shop</h1><ul><li><a href="/item?id=red">Red mug</a></li><li><a href="/item?id=blue">Blue mug</a></li></ul>`),
  '/item': page(
    'Mug',
    `<h1 id="title"></h1><button id="buy">Add to cart</button> <a href="/checkout">Checkout</a><p id="note"></p>
<script>const id = new URLSearchParams(location.search).get('id'); title.textContent = id === 'blue' ? 'Blue mug' : 'Red mug';
buy.onclick = async () => { const cart = JSON.parse(sessionStorage.cart || '[]'); cart.push(title.textContent); sessionStorage.cart = JSON.stringify(cart); await report({ cart }); note.textContent = 'Added.'; };</script>`,
  ),
  '/checkout': page(
    'Checkout',
    `<h1>Checkout</h1><p id="cart"></p><button id="order">Place order</button><p id="done"></p>
<script>const cart = JSON.parse(sessionStorage.cart || '[]'); document.getElementById('cart').textContent = 'In your cart: ' + (cart.join(', ') || 'nothing');
order.onclick = async () => { await report({ ordered: cart }); done.textContent = 'Order number: 1042'; };</script>`,
  ),
  '/widget': page(
    'Rate us',
    `<h1>Rate us</h1><rating-widget></rating-widget>
<script>customElements.define('rating-widget', class extends HTMLElement {
  constructor() { super(); const root = this.attachShadow({ mode: 'open' }); let chosen = 0;
    root.innerHTML = '<div role="group" aria-label="Rating"></div><button id="send">Submit rating</button><p id="said"></p>';
    const group = root.querySelector('div');
    for (let stars = 1; stars <= 5; stars++) { const button = document.createElement('button'); button.textContent = stars + (stars === 1 ? ' star' : ' stars');
      button.setAttribute('aria-pressed', 'false'); button.onclick = () => { chosen = stars; group.querySelectorAll('button').forEach((b, i) => b.setAttribute('aria-pressed', String(i + 1 === stars))); }; group.append(button); }
    root.getElementById('send').onclick = async () => { if (!chosen) return; await report({ rating: chosen }); root.getElementById('said').textContent = 'Rated: ' + chosen + ' of 5'; };
  } });</script>`,
  ),
};

export const TASKS: EvalTask[] = [
  {
    name: 'form',
    about: 'a sign-up form: two text fields, a select, submit',
    start: '/form',
    goal: (origin) =>
      `On ${origin}/form, sign up: type "Ada Lovelace" into "Full name", type "ada@example.com" into "Email", select "Pro" in "Plan", click "Sign up", then answer with the text after "Welcome,"`,
    passed: (state) => JSON.stringify(state.signedUp) === JSON.stringify({ name: 'Ada Lovelace', email: 'ada@example.com', plan: 'Pro' }),
  },
  {
    name: 'list',
    about: 'a list: add two items, tick one',
    start: '/list',
    goal: (origin) =>
      `On ${origin}/list, type "Milk" into "New item", click "Add", type "Eggs" into "New item", click "Add", click "Milk" to tick it, then answer with the text after "Left:"`,
    passed: (state) =>
      JSON.stringify(state.items) ===
      JSON.stringify([
        { title: 'Milk', done: true },
        { title: 'Eggs', done: false },
      ]),
  },
  {
    name: 'multi-page',
    about: 'a flow over three pages: pick a product, add it to the cart, check out',
    start: '/shop',
    goal: (origin) =>
      `On ${origin}/shop, click "Blue mug", click "Add to cart", click "Checkout", click "Place order", then answer with the text after "Order number:"`,
    passed: (state) => JSON.stringify(state.ordered) === JSON.stringify(['Blue mug']),
    approves: ['payments'],
  },
  {
    name: 'shadow-dom',
    about: 'a widget inside a shadow root',
    start: '/widget',
    goal: (origin) => `On ${origin}/widget, click "4 stars", click "Submit rating", then answer with the text after "Rated:"`,
    passed: (state) => state.rating === 4,
  },
];
