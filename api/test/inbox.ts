import type { Db } from '../src/db/database.ts';

/** The token of the last confirmation link queued for a request: what the owner of the address receives. */
export async function emailedToken(db: Db, reference: string): Promise<string> {
  const emails = await db
    .selectFrom('email_outbox')
    .select('body_text')
    .where('reference', '=', reference)
    .orderBy('id')
    .execute();
  const match = emails.at(-1)?.body_text.match(/#token=([A-Za-z0-9_-]{43})/);
  if (!match?.[1]) throw new Error('No confirmation link was queued');
  return match[1];
}
