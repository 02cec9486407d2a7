import { describe, expect, it } from 'vitest';
import { sharedModuleConflicts, type SharedModule } from './shared-modules.ts';

const shell: SharedModule[] = [
  { name: 'react', version: '19.3.1', requiredVersion: '^19.0.0', singleton: true },
  { name: 'react-dom', version: '19.3.1', requiredVersion: '^19.0.0', singleton: true },
  { name: 'zustand', version: '5.1.0', requiredVersion: '^5.0.0', singleton: true },
];

describe('a candidate’s shared modules against the shell’s', () => {
  it('fit when the shell’s versions satisfy what the candidate asks for', () => {
    expect(sharedModuleConflicts(shell, shell)).toEqual([]);
    expect(
      sharedModuleConflicts(shell, [{ name: 'react', version: '19.0.0', requiredVersion: '^19.0.0', singleton: true }]),
    ).toEqual([]);
  });

  it('name both versions when the candidate was built against another major', () => {
    expect(
      sharedModuleConflicts(shell, [{ name: 'react', version: '18.3.1', requiredVersion: '^18.3.1', singleton: true }]),
    ).toEqual(['react: the shell provides 19.3.1, the candidate was built with 18.3.1 and requires ^18.3.1']);
    // A loose range does not hide code compiled against another major.
    expect(
      sharedModuleConflicts(shell, [{ name: 'react-dom', version: '18.3.1', requiredVersion: '*', singleton: true }]),
    ).toEqual(['react-dom: the shell provides 19.3.1, the candidate was built with 18.3.1 and requires *']);
  });

  it('refuses a range the shell’s version is outside of, and a singleton the shell does not provide', () => {
    expect(
      sharedModuleConflicts(shell, [{ name: 'zustand', version: '5.2.0', requiredVersion: '^5.2.0', singleton: true }]),
    ).toEqual(['zustand: the shell provides 5.1.0, the candidate was built with 5.2.0 and requires ^5.2.0']);
    expect(sharedModuleConflicts(shell, [{ name: 'jotai', version: '2.0.0', singleton: true }])).toEqual([
      'jotai: the candidate shares it as a singleton, the shell does not provide it',
    ]);
    expect(sharedModuleConflicts(shell, [{ name: 'lodash', version: '4.17.0' }])).toEqual([]);
  });
});
