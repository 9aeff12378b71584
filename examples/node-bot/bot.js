#!/usr/bin/env node
// A small 6 nimmt! bot in plain Node.js (no npm install), speaking nimmt-bot/1 on stdin/stdout.
// Run it at a table with:  nimmt bot-check -- node examples/node-bot/bot.js
//
// Its idea: play the card that costs the fewest bullheads right now. A card that fits on a row
// with room costs nothing (the closer it fits, the better); a sixth card costs the row it takes;
// a card below every row costs the cheapest row. When it must take a row, it takes the cheapest.
// Anything it wants to say goes to stderr: stdout carries only answers, one JSON line each.
"use strict";

const readline = require("readline");

function bullheads(card) {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

function rowCost(row) {
  return row.reduce((sum, card) => sum + bullheads(card), 0);
}

// The row a card goes to: the one whose last card is the highest below it; -1 if below every row.
function targetRow(rows, card) {
  let best = -1;
  let bestEnd = 0;
  rows.forEach((row, index) => {
    const end = row[row.length - 1];
    if (end < card && end > bestEnd) {
      best = index;
      bestEnd = end;
    }
  });
  return best;
}

function cheapestRow(rows) {
  let best = 0;
  rows.forEach((row, index) => {
    if (rowCost(row) < rowCost(rows[best])) best = index;
  });
  return best;
}

function chooseCard(view, legal) {
  let bestCard = null;
  let bestScore = Infinity;
  for (const { card } of legal) {
    const row = targetRow(view.rows, card);
    let score;
    if (row < 0) {
      score = 1000 * rowCost(view.rows[cheapestRow(view.rows)]) + 500;
    } else if (view.rows[row].length >= 5) {
      score = 1000 * rowCost(view.rows[row]);
    } else {
      const end = view.rows[row][view.rows[row].length - 1];
      // Fitting closely is safe; a fourth or fifth card invites somebody else's sixth.
      score = (card - end) + 50 * view.rows[row].length;
    }
    if (score < bestScore) {
      bestScore = score;
      bestCard = card;
    }
  }
  return bestCard;
}

function answer(message) {
  if (message.type === "hello") {
    process.stderr.write(`node-bot: hello, protocol ${message.protocol}, seed ${message.seed}\n`);
    return { type: "ready", name: "node-example" };
  }
  if (message.type === "act") {
    const view = message.view;
    if (view.must_choose_row) return { row: cheapestRow(view.rows) };
    return { card: chooseCard(view, message.legal) };
  }
  return null; // "bye" and anything unknown need no answer
}

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "bye") {
    lines.close();
    return;
  }
  const reply = answer(message);
  if (reply !== null) process.stdout.write(JSON.stringify(reply) + "\n");
});
lines.on("close", () => process.exit(0));
