import fs from "fs";

const limit = 10;

export function load(path) {
  return fs.readFileSync(path);
}

export class Store {
  constructor() {
    this.items = [];
  }

  add(item) {
    this.items.push(item);
  }
}

const handler = async (req) => {
  return req;
};

function* ids() {
  yield 1;
}
