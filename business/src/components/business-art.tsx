import { ArtBars, ArtCard, ArtColumns, ArtPill, ArtRow, ProductArt } from '@gift/ui';
import type { BusinessArt as Art } from '../content/business-art.ts';

const tones = ['brand', 'teal', 'gold'] as const;
const toneOf = (index: number) => tones[index % tones.length];

/** A business page's picture: the slice of a team's gifting that the page is about. */
export function BusinessArt({ art }: { art: Art }) {
  return <ProductArt label={art.alt}>{cards(art)}</ProductArt>;
}

function cards(art: Art) {
  switch (art.kind) {
    case 'overview':
      return (
        <>
          <ArtCard title={art.budgets.title} meta={art.budgets.meta}>
            <ArtBars bars={art.budgets.body} />
          </ArtCard>
          <ArtCard title={art.approval.title} meta={art.approval.meta} offset="end">
            <ArtRow badge={art.approval.body.initials} tone="gold" {...art.approval.body} />
            <ArtPill>{art.approval.action}</ArtPill>
          </ArtCard>
          <ArtCard title={art.spend.title} meta={art.spend.meta}>
            <ArtColumns columns={art.spend.body} />
          </ArtCard>
        </>
      );
    case 'teams':
      return (
        <>
          <ArtCard title={art.teams.title} meta={art.teams.meta}>
            {art.teams.body.map((team, index) => (
              <ArtRow key={team.name} badge={team.initials} tone={toneOf(index)} {...team} />
            ))}
          </ArtCard>
          <ArtCard title={art.roles.title} meta={art.roles.meta} offset="end">
            {art.roles.body.map((person, index) => (
              <ArtRow key={person.name} badge={person.initials} tone={toneOf(index + 1)} {...person} />
            ))}
          </ArtCard>
        </>
      );
    case 'budgets':
      return (
        <>
          <ArtCard title={art.budgets.title} meta={art.budgets.meta}>
            <ArtBars bars={art.budgets.body} />
          </ArtCard>
          <ArtCard title={art.report.title} meta={art.report.meta} offset="end">
            <ArtColumns columns={art.report.body} />
          </ArtCard>
        </>
      );
    case 'celebration':
      return (
        <>
          <ArtCard title={art.occasion.title} meta={art.occasion.meta}>
            <ArtRow badge={art.occasion.body.initials} {...art.occasion.body} />
            <ArtBars bars={[art.occasion.pot]} />
            <ArtPill tone="teal">{art.occasion.status}</ArtPill>
          </ArtCard>
          <ArtCard title={art.messages.title} meta={art.messages.meta} offset="end">
            {art.messages.body.map((person, index) => (
              <ArtRow key={person.name} badge={person.initials} tone={toneOf(index + 1)} {...person} />
            ))}
          </ArtCard>
        </>
      );
  }
}
