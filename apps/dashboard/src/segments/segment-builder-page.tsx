import { type FormEvent, useState } from "react";
import { Link, useNavigate } from "react-router";
import { canEdit } from "../api/types";
import { useCurrentProject } from "../projects/use-project";
import { Button } from "../ui/button";
import { Field, Input } from "../ui/input";
import { ErrorMessage, PageHeader } from "../ui/states";
import { SegmentBuilder } from "./segment-builder";
import { emptyModel, type SegmentModel, toFilter } from "./segment-rules";
import { useCreateSegment, usePreviewCall } from "./use-segments";

export default function SegmentBuilderPage() {
  const { projectId, membership } = useCurrentProject();
  const mayEdit = canEdit(membership?.role);
  const [model, setModel] = useState<SegmentModel>(emptyModel);
  const [name, setName] = useState("");
  const create = useCreateSegment(projectId);
  const countFilter = usePreviewCall(projectId);
  const navigate = useNavigate();
  const filter = toFilter(model);

  const save = (e: FormEvent) => {
    e.preventDefault();
    if (!filter) return;
    create.mutate({ name: name.trim(), filter }, { onSuccess: () => navigate("..", { relative: "path" }) });
  };

  return (
    <>
      <PageHeader title="New dynamic segment">
        <Button asChild variant="outline">
          <Link to=".." relative="path">
            Back to segments
          </Link>
        </Button>
      </PageHeader>
      {!mayEdit && (
        <p className="mb-4 text-sm text-slate-700">
          You are a viewer of this project: only an owner, admin or member may build and count segments.
        </p>
      )}
      <form onSubmit={save} className="space-y-6">
        <div className="max-w-md">
          <Field label="Segment name">
            {(p) => <Input {...p} required value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
        </div>
        {mayEdit && (
          <SegmentBuilder model={model} onChange={setModel} countFilter={countFilter} countKey={projectId} />
        )}
        <ErrorMessage error={create.error} title="Could not save the segment" />
        <Button type="submit" disabled={!mayEdit || !filter || !name.trim() || create.isPending}>
          Save segment
        </Button>
      </form>
    </>
  );
}
