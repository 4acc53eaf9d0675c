export interface User {
  id: number;
  name: string;
}

export type ID = string | number;

export enum Role {
  Admin,
  Guest,
}

export class Repo {
  private users: User[] = [];

  find(id: ID): User | undefined {
    return this.users.find((u) => u.id === id);
  }
}

export function greet(u: User): string {
  return `hi ${u.name}`;
}

export const shout = (s: string): string => s.toUpperCase();
