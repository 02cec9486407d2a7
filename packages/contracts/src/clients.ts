import {
  apiPaths,
  linkProblems,
  type ConfirmationDetails,
  type DeletionRequestBody,
  type LinkProblem,
  type LocationShareBody,
} from './index.ts';

const postJson = (path: string, body: unknown) =>
  fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

/** An answer: ok, or the status the API refused with. A network failure rejects, as `fetch` does. */
export type Sent = { ok: true } | { ok: false; status: number };

const sent = (response: Response): Sent => (response.ok ? { ok: true } : { ok: false, status: response.status });

export type LinkCheck = { ok: true; details: ConfirmationDetails } | { ok: false; problem: LinkProblem | undefined };

async function checkLink(path: string, token: string): Promise<LinkCheck> {
  const response = await postJson(path, { token });
  if (response.ok) return { ok: true, details: (await response.json()) as ConfirmationDetails };
  const problem = (Object.keys(linkProblems) as LinkProblem[]).find(
    (name) => linkProblems[name].status === response.status,
  );
  return { ok: false, problem };
}

/** The account deletion API, as the browser calls it. */
export const deletionApi = {
  request: async (body: DeletionRequestBody): Promise<Sent> => sent(await postJson(apiPaths.deleteAccount, body)),
  /** What a confirmation link would confirm, changing nothing. */
  lookUp: (token: string) => checkLink(apiPaths.lookUpConfirmation, token),
  confirm: (token: string) => checkLink(apiPaths.confirm, token),
};

/** The location-sharing API, as the browser calls it. */
export const locationApi = {
  share: async (body: LocationShareBody): Promise<Sent> => sent(await postJson(apiPaths.shareLocation, body)),
};
