/**
 * What every restart ask (self-restart tool, `POST /v1/restart`, `goondan restart`, SIGHUP) gets back: whether the
 * bundle on disk was valid and the restart is going ahead, and otherwise the validation issues that stopped it.
 */
export type IssueInfo = {
  code: string;
  /** `file#docIndex.spec.field`. */
  path: string;
  message: string;
};

export type RestartAnswer = {
  accepted: boolean;
  issues: IssueInfo[];
};
