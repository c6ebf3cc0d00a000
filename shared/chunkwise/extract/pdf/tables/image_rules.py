"""Table rules drawn as images: read as the filled boxes TeX draws them as.

dvips + Acrobat Distiller writes every rule of a TeX table (`\\hline`, the `|`
of a column) as a tiny one-bit image mask, a fraction of a point thick,
instead of a filled rectangle. A page of such rules has no vector path at
all, so the table finder saw no table and the page took the no-path fast
path. An image that thin is a rule, not a picture: it becomes a filled,
unstroked rectangle of the same box, which is what pdfTeX draws for a rule,
and the page goes through the ruled-table reader like any other.
"""

from __future__ import annotations

from typing import Any

RULE_IMAGE_SIDE = 1.2  # points: an image no thicker than this is a rule (TeX: 0.4 pt)


def is_rule_box(width: float, height: float) -> bool:
    """A box one side of which is a rule's thickness and the other longer."""
    thin, long = sorted((abs(width), abs(height)))
    return 0 < thin <= RULE_IMAGE_SIDE and long >= 2 * thin


def _as_rect(image: dict[str, Any]) -> dict[str, Any]:
    rect = {k: v for k, v in image.items() if k not in ("stream", "srcsize", "imagemask")}
    rect.update(
        object_type="rect",
        fill=True,
        stroke=False,
        linewidth=0.0,
        non_stroking_color=(0.0,),
        stroking_color=None,
    )
    return rect


def with_image_rules(page: Any) -> Any:
    """The pdfplumber page with its rule-thin images as filled rectangles (itself if none)."""
    images = page.images
    thin = [im for im in images if is_rule_box(float(im["width"]), float(im["height"]))]
    if not thin:
        return page
    taken = {id(im) for im in thin}
    derived = page.filter(lambda obj: True)
    objects = dict(page.objects)
    objects["image"] = [im for im in images if id(im) not in taken]
    objects["rect"] = list(objects.get("rect", [])) + [_as_rect(im) for im in thin]
    derived._objects = objects
    return derived


def has_rule_images(page: Any) -> bool:
    """A PDFium page with an image thin enough to be a rule (forms searched too)."""
    import pypdfium2.raw as pdfium_c  # type: ignore[import-untyped]

    for obj in page.get_objects(max_depth=4):
        if obj.type != pdfium_c.FPDF_PAGEOBJ_IMAGE:
            continue
        left, bottom, right, top = obj.get_bounds()
        if is_rule_box(right - left, top - bottom):
            return True
    return False
