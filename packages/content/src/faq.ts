export interface FaqEntry {
  question: string;
  answer: string;
}

/** The six questions shown on the landing, vendor and every business page. */
export const faqEntries: FaqEntry[] = [
  {
    question: 'How does the app simplify gifting?',
    answer:
      'It keeps gift ideas, the people you care about and their occasions in one place, so choosing, personalising and sending a gift takes minutes instead of an afternoon.',
  },
  {
    question: 'Can I send gifts to a group?',
    answer:
      'Yes. Create a group for family, friends or colleagues and send one gift to everyone in it, or let the group chip in together.',
  },
  {
    question: 'How do I create an occasion?',
    answer: 'Pick a date, choose a theme and add the participants. We remind you in time and suggest gifts that fit.',
  },
  {
    question: 'Can I plan a budget for my gifts?',
    answer: 'Yes. Set a budget per event or per gift and see at a glance how much is left.',
  },
  {
    question: 'What kinds of gifts can I choose from?',
    answer:
      'Personalised items, experiences, tech gadgets, home decor and more, from trusted gift shops, bakeries and florists.',
  },
  {
    question: 'Is it available for businesses?',
    answer:
      'Yes. Businesses use it to celebrate employees, partners and clients, with team budgets, approvals and spending reports.',
  },
];
