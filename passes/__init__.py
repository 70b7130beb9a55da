"""syncopate.passes"""
