"""What doc.ents holds when a component runs after another that set entities
(docs/shipping.md, "doc.ents after another component"): where they overlap,
the later component's entities win; the earlier entities that overlap none
of them stay; with set_ents = false the later one leaves doc.ents alone."""
import spacy

from tests.helpers.trained_pipelines import trained_dir

TEXT = "IL-2 gene expression and NF-kappa B activation require CD28 in Boston ."


def pipeline_after_a_ruler():
    """The trained global_pointer, after an entity_ruler that marks one
    entity the model finds (as ORG) and a token of none (as GPE).
    RETURNS: The pipeline, the model's own entities and the GPE entity."""
    nlp = spacy.load(trained_dir("global_pointer"))
    # The small model's best span only, so that most tokens are free.
    best = float(nlp(TEXT).spans["sc"].attrs["scores"].max())
    nlp.get_pipe("global_pointer").cfg["threshold"] = best * 0.999
    doc = nlp(TEXT)
    found = [(ent.start, ent.end, ent.label_) for ent in doc.ents]
    spans = {(span.start, span.end) for span in doc.spans["sc"]}
    free = [i for i in range(len(doc)) if not any(start <= i < end for start, end in spans)]
    assert found and free, "the trained model finds no entity, or covers every token"
    start, end, _ = found[0]
    ruler = nlp.add_pipe("entity_ruler", before=nlp.pipe_names[0])
    ruler.add_patterns([{"label": "ORG", "pattern": [{"ORTH": token.text} for token in doc[start:end]]},
                        {"label": "GPE", "pattern": [{"ORTH": doc[free[0]].text}]}])
    return nlp, found, (free[0], free[0] + 1, "GPE")


def test_the_later_component_wins_where_entities_overlap():
    nlp, found, kept = pipeline_after_a_ruler()
    doc = nlp(TEXT)
    ents = [(ent.start, ent.end, ent.label_) for ent in doc.ents]
    assert ents == sorted(found + [kept])  # the ruler's ORG replaced, its GPE kept


def test_set_ents_false_leaves_the_earlier_entities():
    nlp, found, kept = pipeline_after_a_ruler()
    nlp.get_pipe("global_pointer").cfg["set_ents"] = False
    doc = nlp(TEXT)
    start, end, _ = found[0]
    assert [(ent.start, ent.end, ent.label_) for ent in doc.ents] == sorted([(start, end, "ORG"), kept])
    assert {(span.start, span.end, span.label_) for span in doc.spans["sc"]} >= set(found)
