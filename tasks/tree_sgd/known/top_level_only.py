# expect: runtime_error via examples, property; retrace skipped
# why: updates only the top level of the dict; a nested dict reaches `lr * dict`.
def tree_sgd(params, grads, lr):
    return {k: params[k] - lr * grads[k] for k in params}
