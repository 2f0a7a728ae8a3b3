/** 1-based line and column in a source text. */
export interface Position {
  line: number;
  column: number;
}
