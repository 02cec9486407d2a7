/** The picture at the top of a business page: a slice of a team's gifting at work, drawn from these figures. */
interface Bar {
  label: string;
  spent: number;
  budget: number;
  figure: string;
}
interface Person {
  initials: string;
  name: string;
  detail: string;
  figure?: string;
}
interface Card<Body> {
  title: string;
  meta: string;
  body: Body;
}

export type BusinessArt = { alt: string } & (
  | {
      kind: 'overview';
      budgets: Card<Bar[]>;
      approval: Card<Person> & { action: string };
      spend: Card<{ label: string; value: number }[]>;
    }
  | { kind: 'teams'; teams: Card<Person[]>; roles: Card<Person[]> }
  | { kind: 'budgets'; budgets: Card<Bar[]>; report: Card<{ label: string; value: number }[]> }
  | { kind: 'celebration'; occasion: Card<Person> & { pot: Bar; status: string }; messages: Card<Person[]> }
);

const months = (values: number[]) =>
  ['Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'].map((label, index) => ({ label, value: values[index]! }));

export const overviewArt = {
  kind: 'overview',
  alt: 'A company’s gifting at a glance: December’s budget for each team with what it has spent, a gift request from Design waiting for approval, and the monthly spend since July.',
  budgets: {
    title: 'Team budgets',
    meta: 'December',
    body: [
      { label: 'Engineering', spent: 1240, budget: 2000, figure: '£1,240 of £2,000' },
      { label: 'Sales', spent: 860, budget: 1200, figure: '£860 of £1,200' },
      { label: 'Design', spent: 410, budget: 800, figure: '£410 of £800' },
    ],
  },
  approval: {
    title: 'Waiting for approval',
    meta: '2 min ago',
    body: { initials: 'AK', name: 'Hamper for Ana’s 5 years', detail: 'Design · asked by Aisha Khan', figure: '£65' },
    action: 'Approve',
  },
  spend: { title: 'Monthly spend', meta: '£2,510 in December', body: months([1.6, 1.9, 1.4, 2.2, 2.0, 2.5]) },
} satisfies BusinessArt;

export const teamsArt = {
  kind: 'teams',
  alt: 'Teams and roles: Engineering, Sales and Design with their size and planner, and who approves gifts and who owns the budget.',
  teams: {
    title: 'Teams',
    meta: '3 teams · 48 people',
    body: [
      { initials: 'EN', name: 'Engineering', detail: '21 people · planned by Leo Park' },
      { initials: 'SA', name: 'Sales', detail: '15 people · planned by Mia Chen' },
      { initials: 'DE', name: 'Design', detail: '12 people · planned by Ana Silva' },
    ],
  },
  roles: {
    title: 'Roles',
    meta: 'Design',
    body: [
      { initials: 'AK', name: 'Aisha Khan', detail: 'Approves gifts', figure: 'Approver' },
      { initials: 'TB', name: 'Tom Baker', detail: 'Pays from the budget', figure: 'Owner' },
    ],
  },
} satisfies BusinessArt;

export const budgetsArt = {
  kind: 'budgets',
  alt: 'Budgets and reports: what each kind of occasion has spent of its budget this quarter, and the spend of each month since July.',
  budgets: {
    title: 'This quarter',
    meta: 'Updated just now',
    body: [
      { label: 'Birthdays', spent: 620, budget: 900, figure: '£620 of £900' },
      { label: 'Work anniversaries', spent: 1150, budget: 1500, figure: '£1,150 of £1,500' },
      { label: 'Welcome gifts', spent: 380, budget: 600, figure: '£380 of £600' },
    ],
  },
  report: { title: 'Spend by month', meta: 'Report for finance', body: months([1.1, 1.3, 0.9, 1.5, 1.4, 1.7]) },
} satisfies BusinessArt;

export const celebrationArt = {
  kind: 'celebration',
  alt: 'A team celebration: Ana’s fifth work anniversary on Friday, twelve colleagues who chipped in £180 towards her gift, and two of their messages.',
  occasion: {
    title: 'Ana’s 5 years with us',
    meta: 'Friday',
    body: { initials: 'AS', name: 'Ana Silva', detail: 'Design · joined in 2021' },
    pot: { label: 'Group gift', spent: 180, budget: 240, figure: '£180 from 12 colleagues' },
    status: 'Gift on its way',
  },
  messages: {
    title: 'Messages',
    meta: '12 signed',
    body: [
      { initials: 'LP', name: 'Leo Park', detail: 'Five brilliant years. Thank you!' },
      { initials: 'MC', name: 'Mia Chen', detail: 'Here is to the next five, Ana.' },
    ],
  },
} satisfies BusinessArt;
