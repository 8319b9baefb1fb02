import { Button } from "../ui/button";
import { Input, Select } from "../ui/input";
import {
  ATTRIBUTE_OPS,
  type AttributeOp,
  describeCount,
  type Match,
  newRule,
  type Rule,
  type RuleGroup,
  type RuleKind,
  type SegmentModel,
  toFilter,
} from "./segment-rules";
import { type CountFilter, useSegmentCount } from "./use-segments";

const KINDS: Record<RuleKind, string> = {
  attribute: "Attribute",
  tag: "Tag",
  subscription: "Consent",
  event: "Event count",
};

/**
 * A dynamic segment's rules (attributes, tags, consent, event counts in a window), in groups joined by AND or OR,
 * with the live count of the leads they match. The count is asked in the background after a pause in typing
 * (useSegmentCount): editing never waits on it, and the last count stays shown while the next is counted.
 */
export function SegmentBuilder({
  model,
  onChange,
  countFilter,
  countKey,
}: {
  model: SegmentModel;
  onChange: (m: SegmentModel) => void;
  countFilter: CountFilter;
  /** the project: counts are cached per project */
  countKey: string;
}) {
  const filter = toFilter(model);
  const count = useSegmentCount(filter, countFilter, countKey);
  const setGroup = (i: number, g: RuleGroup | null) =>
    onChange({
      ...model,
      groups:
        g === null ? model.groups.filter((_, j) => j !== i) : model.groups.map((x, j) => (j === i ? g : x)),
    });

  return (
    <div className="space-y-4">
      <div
        role="status"
        aria-live="polite"
        className="rounded-md border border-blue-200 bg-blue-50 p-3 text-sm text-blue-950"
      >
        {!filter ? (
          "Complete a rule to see how many leads match."
        ) : count.error ? (
          <span>Could not count: {count.error.message}</span>
        ) : count.data ? (
          <span>
            <strong data-testid="segment-count">{describeCount(count.data)}</strong>{" "}
            {count.data.count === 1 && count.data.exact ? "lead matches" : "leads match"}
            {count.isFetching ? " (counting again…)" : ""}
          </span>
        ) : (
          "Counting…"
        )}
      </div>
      {model.groups.length > 1 && (
        <MatchPicker label="Groups" value={model.match} onChange={(match) => onChange({ ...model, match })} />
      )}
      {model.groups.map((g, i) => (
        <fieldset key={i} className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
          <legend className="px-1 text-sm font-semibold text-slate-900">Group {i + 1}</legend>
          <MatchPicker
            label={`Rules of group ${i + 1}`}
            value={g.match}
            onChange={(match) => setGroup(i, { ...g, match })}
          />
          {g.rules.map((r, k) => (
            <RuleRow
              key={k}
              rule={r}
              name={`Group ${i + 1} rule ${k + 1}`}
              onChange={(nr) =>
                setGroup(i, {
                  ...g,
                  rules:
                    nr === null
                      ? g.rules.filter((_, j) => j !== k)
                      : g.rules.map((x, j) => (j === k ? nr : x)),
                })
              }
            />
          ))}
          <div className="flex flex-wrap gap-2">
            <Button
              type="button"
              size="sm"
              variant="outline"
              onClick={() => setGroup(i, { ...g, rules: [...g.rules, newRule("attribute")] })}
            >
              Add a rule to group {i + 1}
            </Button>
            {model.groups.length > 1 && (
              <Button type="button" size="sm" variant="ghost" onClick={() => setGroup(i, null)}>
                Remove group {i + 1}
              </Button>
            )}
          </div>
        </fieldset>
      ))}
      <Button
        type="button"
        variant="outline"
        onClick={() =>
          onChange({ ...model, groups: [...model.groups, { match: "all", rules: [newRule("attribute")] }] })
        }
      >
        Add a group
      </Button>
    </div>
  );
}

function MatchPicker({
  label,
  value,
  onChange,
}: {
  label: string;
  value: Match;
  onChange: (m: Match) => void;
}) {
  return (
    <div role="radiogroup" aria-label={label} className="flex items-center gap-3 text-sm text-slate-800">
      <span>{label}: match</span>
      {(["all", "any"] as const).map((m) => (
        <label key={m} className="flex items-center gap-1">
          <input type="radio" checked={value === m} onChange={() => onChange(m)} />
          {m === "all" ? "all (AND)" : "any (OR)"}
        </label>
      ))}
    </div>
  );
}

function RuleRow({ rule, name, onChange }: { rule: Rule; name: string; onChange: (r: Rule | null) => void }) {
  return (
    <div className="flex flex-wrap items-center gap-2" role="group" aria-label={name}>
      <Select
        aria-label={`${name}: kind`}
        className="w-40"
        value={rule.kind}
        onChange={(e) => onChange(newRule(e.target.value as RuleKind))}
      >
        {Object.entries(KINDS).map(([k, l]) => (
          <option key={k} value={k}>
            {l}
          </option>
        ))}
      </Select>
      {rule.kind === "attribute" && (
        <>
          <Input
            aria-label={`${name}: attribute name`}
            placeholder="plan"
            className="w-40"
            value={rule.attribute}
            onChange={(e) => onChange({ ...rule, attribute: e.target.value })}
          />
          <Select
            aria-label={`${name}: comparison`}
            className="w-36"
            value={rule.op}
            onChange={(e) => onChange({ ...rule, op: e.target.value as AttributeOp })}
          >
            {Object.entries(ATTRIBUTE_OPS).map(([k, l]) => (
              <option key={k} value={k}>
                {l}
              </option>
            ))}
          </Select>
          {rule.op !== "exists" && rule.op !== "not_exists" && (
            <Input
              aria-label={`${name}: value`}
              className="w-40"
              value={rule.value}
              onChange={(e) => onChange({ ...rule, value: e.target.value })}
            />
          )}
        </>
      )}
      {rule.kind === "tag" && (
        <>
          <Select
            aria-label={`${name}: has or has not`}
            className="w-36"
            value={rule.has ? "has" : "not"}
            onChange={(e) => onChange({ ...rule, has: e.target.value === "has" })}
          >
            <option value="has">has tag</option>
            <option value="not">has not tag</option>
          </Select>
          <Input
            aria-label={`${name}: tag`}
            placeholder="vip"
            className="w-40"
            value={rule.tag}
            onChange={(e) => onChange({ ...rule, tag: e.target.value })}
          />
        </>
      )}
      {rule.kind === "subscription" && (
        <Select
          aria-label={`${name}: consent`}
          className="w-44"
          value={rule.subscription}
          onChange={(e) => onChange({ ...rule, subscription: e.target.value as typeof rule.subscription })}
        >
          <option value="subscribed">is subscribed</option>
          <option value="unsubscribed">is unsubscribed</option>
          <option value="unknown">was never asked</option>
        </Select>
      )}
      {rule.kind === "event" && (
        <>
          <Input
            aria-label={`${name}: event name`}
            placeholder="purchase"
            className="w-36"
            value={rule.event}
            onChange={(e) => onChange({ ...rule, event: e.target.value })}
          />
          <span className="text-sm text-slate-700">at least</span>
          <Input
            aria-label={`${name}: at least how many times`}
            inputMode="numeric"
            className="w-20"
            value={rule.min_count}
            onChange={(e) => onChange({ ...rule, min_count: e.target.value })}
          />
          <span className="text-sm text-slate-700">times in the last</span>
          <Input
            aria-label={`${name}: days (empty: ever)`}
            inputMode="numeric"
            className="w-20"
            value={rule.within_days}
            onChange={(e) => onChange({ ...rule, within_days: e.target.value })}
          />
          <span className="text-sm text-slate-700">days</span>
        </>
      )}
      <Button
        type="button"
        size="sm"
        variant="ghost"
        aria-label={`Remove ${name}`}
        onClick={() => onChange(null)}
      >
        Remove
      </Button>
    </div>
  );
}
